package dev.rowqueue.internal;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.TransactionBinding;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An enqueue that joins a caller's transaction wakes this instance's waiters when that transaction commits
 * ({@link TransactionBinding#afterCommit}), not when the enqueue returns: woken before the commit, a waiter finds
 * nothing (the job is not visible yet) and sees it only at its next poll.
 */
class AfterCommitWakeupTest {

    /** A caller's transaction per thread, as a framework keeps it, with its after-commit actions. */
    private static final class CallerTransactions implements TransactionBinding {
        private final ThreadLocal<Connection> current = new ThreadLocal<>();
        private final ThreadLocal<List<Runnable>> afterCommit = ThreadLocal.withInitial(ArrayList::new);

        void begin(Connection c) throws Exception {
            c.setAutoCommit(false);
            current.set(c);
        }

        void commit() throws Exception {
            Connection c = current.get();
            current.remove();
            c.commit();
            c.close();
            List<Runnable> actions = new ArrayList<>(afterCommit.get());
            afterCommit.remove();
            actions.forEach(Runnable::run);
        }

        @Override
        public Connection currentConnection(DataSource dataSource) {
            return current.get();
        }

        @Override
        public void release(Connection connection, DataSource dataSource) {
        }

        @Override
        public boolean afterCommit(DataSource dataSource, Runnable action) {
            if (current.get() == null) {
                return false;
            }
            afterCommit.get().add(action);
            return true;
        }
    }

    /**
     * Four blocking claims, each on a queue of its own, have waited 8 s with a poll interval of a minute, so each
     * waits seconds between polls (the backoff doubles from 50 ms, with jitter). A job enqueued in a caller's
     * transaction that commits 300 ms later is claimed within a second of the commit. With the wake-up sent when the
     * enqueue returns instead, each claim wakes before the commit, finds nothing, and sees the job only at its next
     * poll, at least the half of a pause of several seconds away: the test fails for all four.
     */
    @Test
    void an_enqueue_in_a_callers_transaction_wakes_waiters_at_its_commit() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:after_commit_wakeups;DB_CLOSE_DELAY=-1");
        CallerTransactions transactions = new CallerTransactions();
        try (RowQueues rq = RowQueues.builder(ds).transactionBinding(transactions).pollInterval(Duration.ofMinutes(1))
                .build()) {
            List<WorkQueue> queues = new ArrayList<>();
            List<CompletableFuture<Long>> claims = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                WorkQueue q = rq.workQueue("after_commit_" + i).create();
                queues.add(q);
                claims.add(LocalWakeupsTest.blockingClaim(q));
            }
            TimeUnit.SECONDS.sleep(8);
            for (int i = 0; i < queues.size(); i++) {
                transactions.begin(ds.getConnection());
                queues.get(i).enqueue("in a transaction " + i);
                TimeUnit.MILLISECONDS.sleep(300);
                assertEquals(false, claims.get(i).isDone(), "claim " + i + " saw the job before its commit");
                transactions.commit();
                long committed = System.nanoTime();
                long at = claims.get(i).get(90, TimeUnit.SECONDS);
                assertTrue(at > 0, "the blocking claim of queue " + i + " got the job");
                assertTrue(at - committed < TimeUnit.SECONDS.toNanos(1), "blocking claim " + i + " took the job "
                        + TimeUnit.NANOSECONDS.toMillis(at - committed) + " ms after its commit");
            }
            for (WorkQueue q : queues) {
                assertEquals(0, q.stats().total(), "the job was acked");
            }
        }
    }
}
