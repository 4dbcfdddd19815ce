package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.WorkerLeaseScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;

/** Issue 42's worker lease scenarios on the embedded PostgreSQL ({@link WorkerLeaseScenario}). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresWorkerLeaseTest {

    private PgFixture db;

    @BeforeAll
    void start() {
        db = PgFixture.newest("leases");
    }

    @AfterAll
    void stop() {
        db.close();
    }

    @Test
    void a_job_acked_while_a_heartbeat_is_in_flight_is_not_a_lost_lease() {
        WorkerLeaseScenario.ackDuringSlowBeat(db.pool, "slow_beat");
    }

    @Test
    void a_cut_off_worker_knows_its_leases_ended_before_another_worker_runs_their_jobs() throws Exception {
        WorkerLeaseScenario.cutOffWorkerKnowsFirst(db.pool, network(), "cut_off");
    }

    private WorkerLeaseScenario.Network network() {
        return new WorkerLeaseScenario.Network() {
            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public int port() {
                return db.server.port();
            }

            @Override
            public DataSource through(int port) {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(db.server.url(db.database).replace(":" + port() + "/", ":" + port + "/"));
                config.setUsername("postgres");
                config.setPassword("");
                config.setMaximumPoolSize(8);
                config.setMinimumIdle(0);
                config.setConnectionTimeout(5_000);
                config.setPoolName("pg-through-proxy-" + port);
                return new HikariDataSource(config);
            }
        };
    }
}
