package dev.rowqueue.postgres;

import dev.rowqueue.tck.WorkerCrashScenario;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * Issue 15's crash test on the embedded PostgreSQL: a worker in a child JVM killed with SIGKILL mid-batch, a second
 * worker finishing every job (see {@link WorkerCrashScenario} for what is checked).
 */
class WorkerCrashTest {

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void a_worker_killed_mid_batch_loses_no_job_and_no_job_runs_twice_while_its_lease_lives() throws Exception {
        try (PgFixture db = PgFixture.newest("crash")) {
            WorkerCrashScenario.Outcome outcome = WorkerCrashScenario.run(db.pool, db.server.url(db.database),
                    "postgres", "", "crashed");
            System.out.println("PostgreSQL " + db.server.version() + ": " + outcome);
        }
    }
}
