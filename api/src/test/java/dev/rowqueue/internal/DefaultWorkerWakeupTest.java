package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker's dispatcher waits for a handler thread to free up; a handler that finishes must wake it whenever it
 * finishes, also between the dispatcher's look at the free threads and its wait, or the next claim waits for the poll
 * interval. Each test runs with a poll interval longer than the whole run allows.
 */
class DefaultWorkerWakeupTest {

    /** Long enough that a machine under any load runs the jobs well within it, unless one waits for a poll. */
    private static final Duration POLL = Duration.ofSeconds(60);

    /** H2 in memory; every {@code getConnection()} waits {@code delayMs} once {@code slow} is set. */
    private static final class SlowDataSource {
        final JdbcDataSource h2 = new JdbcDataSource();
        volatile boolean slow;
        final long delayMs;
        final DataSource ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (slow && method.getName().equals("getConnection")) {
                        Thread.sleep(delay());
                    }
                    try {
                        return method.invoke(h2, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        SlowDataSource(String name, long delayMs) {
            h2.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
            this.delayMs = delayMs;
        }

        /** Read through a method: a lambda in a field initializer cannot read a blank final field. */
        private long delay() {
            return delayMs;
        }
    }

    private static WorkQueue queueWith(RowQueues rq, String name, int jobs) {
        WorkQueue q = rq.workQueue(name);
        q.enqueueAll(Collections.nCopies(jobs, "x"), dev.rowqueue.Enqueue.defaults());
        return q;
    }

    /**
     * The common case: a no-op handler finishes on its thread before the dispatcher that started it waits. A race,
     * so this can pass without the fix; on a busy 2-core machine it failed 3 runs of 4 before it (1 to 17 jobs ran).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void no_op_jobs_on_one_thread_run_back_to_back_not_one_per_poll_interval() throws Exception {
        SlowDataSource ds = new SlowDataSource("worker_back_to_back", 0);
        int jobs = 200;
        try (RowQueues rq = RowQueues.builder(ds.ds).pollInterval(POLL).build()) {
            WorkQueue q = queueWith(rq, "back_to_back", jobs);
            CountDownLatch done = new CountDownLatch(jobs);
            try (Worker w = q.worker(job -> done.countDown(), WorkerOptions.defaults().withThreads(1)).start()) {
                assertTrue(done.await(POLL.toMillis() - 5_000, TimeUnit.MILLISECONDS), jobs - done.getCount()
                        + " of " + jobs + " no-op jobs ran in " + (POLL.toMillis() - 5_000) + " ms: the dispatcher"
                        + " missed a finished handler's wake-up and waited for the poll interval");
            }
            assertEquals(0, q.stats().leased() + q.stats().ready(), "every job acked");
        }
    }

    /**
     * The handler's thread is still counted as busy while the listener hears of its success, and the database is
     * slow: a dispatcher woken by the queued ack before the thread was free sent the ack on its own, and the thread's
     * freeing, signalled meanwhile, was lost, so each job waited for the poll interval.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void a_finished_handler_frees_its_thread_as_its_ack_is_queued_even_with_a_slow_listener_and_database()
            throws Exception {
        SlowDataSource ds = new SlowDataSource("worker_slow_listener", 50);
        int jobs = 5;
        try (RowQueues rq = RowQueues.builder(ds.ds).pollInterval(POLL).build()) {
            WorkQueue q = queueWith(rq, "slow_listener", jobs);
            CountDownLatch done = new CountDownLatch(jobs);
            WorkerListener slowListener = new WorkerListener() {
                @Override
                public void succeeded(Job job, Duration running) {
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    done.countDown();
                }
            };
            ds.slow = true;
            try (Worker w = q.worker(job -> { }, WorkerOptions.defaults().withThreads(1).withListener(slowListener)).start()) {
                assertTrue(done.await(POLL.toMillis() - 5_000, TimeUnit.MILLISECONDS), jobs - done.getCount()
                        + " of " + jobs + " jobs ran within one poll interval");
            }
            ds.slow = false;
            assertEquals(0, q.stats().leased() + q.stats().ready(), "every job acked");
        }
    }
}
