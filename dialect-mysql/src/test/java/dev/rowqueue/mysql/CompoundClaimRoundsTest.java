package dev.rowqueue.mysql;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.InterceptingDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MariaDB's compound claim commits each round on its own: when a later round fails, the jobs the earlier rounds leased
 * are the claim's, and it returns them instead of failing (they would stay leased until their leases end, on Galera
 * after a later round lost a certification race). Here the first window's candidates are all but two locked by
 * another transaction, so the claim takes those two and widens its window, and the second round's statement fails
 * with 1213 before it runs.
 */
class CompoundClaimRoundsTest extends EmbeddedServerTest {

    @Override
    protected String database() {
        return "it_rounds";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+00:00", false);
    }

    @Test
    void a_claim_whose_later_round_fails_returns_the_jobs_its_earlier_rounds_leased() throws Exception {
        String queue = name("rounds", 0);
        SecondRoundFails ds = new SecondRoundFails(pools.get(EmbeddedMariaDb.Driver.MARIADB));
        try (RowQueues rq = RowQueues.builder(ds).retry(RetryPolicy.none()).build()) {
            WorkQueue q = rq.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
            List<String> payloads = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                payloads.add("j" + i);
            }
            List<Long> ids = q.enqueueAll(payloads, Enqueue.defaults());
            try (Connection admin = connect(EmbeddedMariaDb.Driver.MARIADB)) {
                admin.setAutoCommit(false);
                // the first window is 32 jobs: all but the first two locked, one by one (a range could lock more)
                try (PreparedStatement lock = admin.prepareStatement("SELECT id FROM " + queue
                        + " WHERE id = ? FOR UPDATE")) {
                    for (long id : ids.subList(2, 32)) {
                        lock.setLong(1, id);
                        lock.executeQuery().close();
                    }
                }
                ds.compounds.set(0);
                List<Job> jobs = q.claim(5); // a single attempt: a failure would surface here
                assertEquals(2, ds.compounds.get(), "the claim ran a second round, which failed");
                assertEquals(ids.subList(0, 2), jobs.stream().map(Job::id).toList());
                admin.rollback();
            }
            assertEquals(2, q.stats().leased(), "no job is leased that the claim did not return");
        }
    }

    /** Fails the second compound statement of a claim with 1213, before it reaches the server. */
    private static final class SecondRoundFails extends InterceptingDataSource {
        final AtomicInteger compounds = new AtomicInteger(-1_000_000);

        SecondRoundFails(DataSource delegate) {
            super(delegate);
        }

        @Override
        protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
            if (sql != null && sql.startsWith("BEGIN NOT ATOMIC") && EXECUTIONS.contains(method.getName())
                    && compounds.incrementAndGet() == 2) {
                throw new SQLException("Deadlock found when trying to get lock (made by the test)", "40001", 1213);
            }
            return call.proceed();
        }
    }
}
