package dev.rowqueue.postgres;

import dev.rowqueue.tck.WorkerLeaseScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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
}
