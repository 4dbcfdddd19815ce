package dev.rowqueue.mysql;

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
    void a_job_acked_while_a_heartbeat_is_in_flight_is_not_a_lost_lease() {
        WorkerLeaseScenario.ackDuringSlowBeat(pools.get(EmbeddedMariaDb.Driver.MARIADB), "slow_beat");
    }

    @Test
    void a_cut_off_worker_knows_its_leases_ended_before_another_worker_runs_their_jobs() throws Exception {
        WorkerLeaseScenario.cutOffWorkerKnowsFirst(pools.get(EmbeddedMariaDb.Driver.MARIADB), network(), "cut_off");
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
                return MySqlTargets.pool(EmbeddedMariaDb.Driver.MARIADB.url("127.0.0.1", port, database()), "root",
                        "", session(), "mariadb-through-proxy-" + port);
            }
        };
    }
}
