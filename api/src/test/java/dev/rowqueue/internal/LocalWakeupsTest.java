package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where the database cannot signal (H2 here), an instance's own writes wake its idle workers and blocking claims at
 * once ({@link LocalWakeups}), instead of leaving the job to a poll that has backed off towards the poll interval.
 */
class LocalWakeupsTest {

    /**
     * Six blocking claims and two idle workers, each on a queue of its own, have waited 8 s with a poll interval of a
     * minute: each waits between polls for seconds by then (the backoff doubles from 50 ms, with jitter). A job
     * enqueued by the same instance is claimed within a second of its enqueue. Without the wake-up each would be seen
     * only at its waiter's next poll, seconds away for most of them (at most about one in five waits ends within a
     * second), so the test fails with the wake-up removed, for all waiters at once but with odds far below a
     * thousandth.
     */
    /**
     * @param q a queue
     * @return a blocking claim of one job, waiting up to a minute on a thread of its own, that acks what it gets: when
     *         it got it ({@link System#nanoTime()}), or -1 if nothing
     */
    static CompletableFuture<Long> blockingClaim(WorkQueue q) {
        return CompletableFuture.supplyAsync(() -> {
            List<Job> jobs = q.claim(1, Duration.ofMinutes(1));
            long at = System.nanoTime();
            jobs.forEach(q::ack);
            return jobs.isEmpty() ? -1 : at;
        }, runnable -> new Thread(runnable, "blocking-claim").start());
    }

    @Test
    void an_enqueue_wakes_idle_workers_and_blocking_claims_of_its_own_instance() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:local_wakeups;DB_CLOSE_DELAY=-1");
        try (RowQueues rq = RowQueues.builder(ds).pollInterval(Duration.ofMinutes(1)).build()) {
            List<WorkQueue> claimed = new ArrayList<>();
            List<CompletableFuture<Long>> claims = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                WorkQueue q = rq.workQueue("blocking_" + i).create();
                claimed.add(q);
                claims.add(blockingClaim(q));
            }
            List<WorkQueue> worked = new ArrayList<>();
            List<Worker> workers = new ArrayList<>();
            List<long[]> started = new ArrayList<>();
            List<CountDownLatch> ran = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                WorkQueue q = rq.workQueue("worked_" + i).create();
                long[] at = new long[1];
                CountDownLatch latch = new CountDownLatch(1);
                worked.add(q);
                started.add(at);
                ran.add(latch);
                workers.add(q.worker(job -> {
                    at[0] = System.nanoTime();
                    latch.countDown();
                }, WorkerOptions.defaults().withThreads(1)).start());
            }
            TimeUnit.SECONDS.sleep(8);
            for (int i = 0; i < claimed.size(); i++) {
                long enqueued = System.nanoTime();
                claimed.get(i).enqueue("wake " + i);
                long at = claims.get(i).get(30, TimeUnit.SECONDS);
                assertTrue(at > 0, "the blocking claim of queue " + i + " got the job");
                assertTrue(at - enqueued < TimeUnit.SECONDS.toNanos(1), "blocking claim " + i + " took the job "
                        + TimeUnit.NANOSECONDS.toMillis(at - enqueued) + " ms after its enqueue");
            }
            for (int i = 0; i < worked.size(); i++) {
                long enqueued = System.nanoTime();
                worked.get(i).enqueue("wake");
                assertTrue(ran.get(i).await(30, TimeUnit.SECONDS), "worker " + i + " ran the job");
                long took = started.get(i)[0] - enqueued;
                assertTrue(took < TimeUnit.SECONDS.toNanos(1), "worker " + i + " started the job "
                        + TimeUnit.NANOSECONDS.toMillis(took) + " ms after its enqueue");
            }
            workers.forEach(Worker::close);
            for (WorkQueue q : worked) {
                assertEquals(0, q.stats().total(), "the job was acked");
            }
        }
    }
}
