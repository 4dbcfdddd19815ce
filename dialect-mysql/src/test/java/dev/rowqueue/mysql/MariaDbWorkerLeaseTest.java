package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.WorkerLeaseScenario;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;

/** Issue 42's worker lease scenarios on the embedded MariaDB ({@link WorkerLeaseScenario}). */
class MariaDbWorkerLeaseTest extends EmbeddedServerTest {

    @Override
    protected String database() {
        return "it_leases";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+00:00", false);
    }

    @Test
    void claims_whose_answers_are_lost_burn_no_attempt() {
        WorkerLeaseScenario.lostClaimAnswersBurnNoAttempt(pools.get(EmbeddedMariaDb.Driver.MARIADB), "unknown_claims");
    }

    @Test
    void a_job_acked_while_a_heartbeat_is_in_flight_is_not_a_lost_lease() {
        WorkerLeaseScenario.ackDuringSlowBeat(pools.get(EmbeddedMariaDb.Driver.MARIADB), "slow_beat");
    }

    @Test
    void a_cut_off_worker_knows_its_leases_ended_before_another_worker_runs_their_jobs() throws Exception {
        WorkerLeaseScenario.cutOffWorkerKnowsFirst(pools.get(EmbeddedMariaDb.Driver.MARIADB), network(), "cut_off");
    }

    @Test
    void a_black_holed_connection_is_abandoned_within_its_bound() throws Exception {
        WorkerLeaseScenario.blackHoleIsBounded(pools.get(EmbeddedMariaDb.Driver.MARIADB), network(), "black_hole");
    }

    @Test
    void connection_kills_raise_no_alarm_and_burn_no_attempt() throws Exception {
        WorkerLeaseScenario.connectionKills(pools.get(EmbeddedMariaDb.Driver.MARIADB), network(), "kills");
    }

    private WorkerLeaseScenario.Network network() {
        return new WorkerLeaseScenario.Network() {
            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public int port() {
                return server.port();
            }

            @Override
            public DataSource through(int port) {
                HikariDataSource pool = MySqlTargets.pool(EmbeddedMariaDb.Driver.MARIADB.url("127.0.0.1", port,
                        database()), "root", "", session(), "mariadb-through-proxy-" + port);
                pool.setConnectionTimeout(2_000);
                pool.setValidationTimeout(1_000);
                return pool;
            }
        };
    }
}
