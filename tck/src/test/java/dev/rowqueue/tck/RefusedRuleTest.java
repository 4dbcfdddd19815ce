package dev.rowqueue.tck;

import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rule that waits for a worker whose claims the database refuses (a DBA dropped a column the claim needs: the
 * claim's statement is a class 42 error) fails at once with the refusal, instead of waiting out its two minutes and
 * failing with "not within PT2M".
 */
class RefusedRuleTest {

    @Test
    void a_rule_waiting_for_a_worker_whose_claims_are_refused_fails_at_once_naming_the_refusal() throws Exception {
        TckEnv env = new TckEnv(TckTargets.driverManager("H2", "jdbc:h2:mem:tck_refused;DB_CLOSE_DELAY=-1", "sa",
                ""));
        try {
            WorkQueue q = env.rq().workQueue("drifted");
            q.enqueue("x");
            try (Connection c = env.rawDataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("ALTER TABLE drifted DROP COLUMN last_error");
            }
            AtomicBoolean ran = new AtomicBoolean();
            Worker w = q.worker(job -> ran.set(true), WorkerOptions.defaults().withThreads(1)).start();
            try {
                AssertionError e = assertThrows(AssertionError.class,
                        () -> WorkerContract.eventually("the job runs", ran::get));
                assertTrue(e.getMessage().startsWith("gave up waiting for the job runs at once: the database refuses"
                        + " a statement of the claim"), e.getMessage());
            } finally {
                w.close(Duration.ofSeconds(5));
            }
        } finally {
            env.rq().close();
        }
    }
}
