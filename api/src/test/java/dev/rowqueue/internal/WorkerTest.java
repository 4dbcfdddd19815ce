package dev.rowqueue.internal;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The worker runtime's own behaviour on H2 (the TCK's worker contract covers the rest on every engine): a database
 * outage is survived and reported once per failure in a row, heartbeats are one statement for every running job,
 * bad options are refused before any SQL runs.
 */
class WorkerTest {

    /** H2 behind a switch that refuses connections, and a log of the statements prepared. */
    static final class SwitchedDataSource {
        final JdbcDataSource h2 = new JdbcDataSource();
        final AtomicBoolean down = new AtomicBoolean();
        final List<String> prepared = new CopyOnWriteArrayList<>();
        /** Milliseconds each statement takes longer, as on a slow network. */
        volatile long latencyMs;
        final DataSource ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        if (down.get()) {
                            throw new SQLTransientConnectionException("connection refused (test)", "08001");
                        }
                        return recording(h2.getConnection());
                    }
                    return invoke(h2, method, args);
                });

        SwitchedDataSource(String name) {
            h2.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        }

        private Connection recording(Connection c) {
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement")) {
                            prepared.add((String) args[0]);
                            if (latencyMs > 0) {
                                TimeUnit.MILLISECONDS.sleep(latencyMs);
                            }
                        }
                        return invoke(c, method, args);
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
                throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within a minute: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /**
     * {@code worker(handler)} runs with the defaults, and a handler sees one count of attempts: {@code attempt()} is 1
     * on the first run and {@link dev.rowqueue.Job#failures()} + 1 on every run.
     */
    @Test
    void a_worker_without_options_runs_with_the_defaults_and_attempt_is_failures_plus_one() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("defaults_worker");
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("plain", WorkQueueOptions.defaults()
                    .withRetryBackoff(Duration.ZERO, Duration.ZERO));
            q.enqueue("fails once");
            List<String> seen = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(1);
            try (Worker w = q.worker(job -> {
                seen.add(job.attempt() + "/" + job.job().failures());
                if (job.attempt() == 1) {
                    throw new IllegalStateException("first run fails");
                }
                done.countDown();
            }).start()) {
                assertTrue(done.await(20, TimeUnit.SECONDS), "the retry ran");
            }
            assertEquals(List.of("1/0", "2/1"), seen);
        }
    }

    @Test
    void a_database_outage_is_retried_with_backoff_and_reported_per_failure_in_a_row() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_outage");
        List<Integer> consecutive = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("jobs");
            WorkerListener listener = new WorkerListener() {
                @Override
                public void databaseError(RuntimeException error, int n) {
                    consecutive.add(n);
                }
            };
            try (Worker w = q.worker(job -> runs.incrementAndGet(), WorkerOptions.defaults().withThreads(2).withListener(listener))
                    .start()) {
                sds.down.set(true);
                eventually("three failures in a row", () -> consecutive.size() >= 3);
                sds.down.set(false);
                q.enqueueAll(List.of("a", "b", "c"), dev.rowqueue.Enqueue.defaults());
                eventually("the jobs ran after the outage", () -> runs.get() == 3 && q.stats().total() == 0);
            }
        }
        assertEquals(1, consecutive.get(0), "an outage's first failure is 1");
        for (int i = 1; i < consecutive.size(); i++) {
            assertTrue(consecutive.get(i) == consecutive.get(i - 1) + 1 || consecutive.get(i) == 1,
                    "failures counted in a row: " + consecutive);
        }
    }

    @Test
    void one_heartbeat_extends_every_running_job_in_one_statement() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_beat");
        CountDownLatch running = new CountDownLatch(4);
        CountDownLatch finish = new CountDownLatch(1);
        List<Integer> beats = new CopyOnWriteArrayList<>();
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("beats", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(30)));
            q.enqueueAll(List.of("a", "b", "c", "d"), dev.rowqueue.Enqueue.defaults());
            WorkerListener listener = new WorkerListener() {
                @Override
                public void heartbeat(int jobs) {
                    beats.add(jobs);
                }
            };
            try (Worker w = q.worker(job -> {
                running.countDown();
                finish.await();
            }, WorkerOptions.defaults().withThreads(4).withHeartbeat(Duration.ofMillis(100)).withListener(listener)).start()) {
                assertTrue(running.await(30, TimeUnit.SECONDS));
                // a beat that read the running jobs before the fourth started may still report: wait for one of 4
                eventually("a heartbeat of the 4 running jobs", () -> beats.contains(4));
                sds.prepared.clear();
                beats.clear();
                // one more than needed: a beat whose statement ran before the clear may report after it
                eventually("four heartbeats", () -> beats.size() >= 4);
                finish.countDown();
                long extensions = sds.prepared.stream().filter(s -> s.contains("SET due_ms")
                        && s.contains(" OR (id = ")).count();
                assertTrue(beats.stream().allMatch(n -> n == 4), "each beat covered the 4 running jobs: " + beats);
                assertTrue(extensions >= 3 && extensions <= beats.size() + 1,
                        "one statement per beat, not one per job: " + extensions + " for " + beats.size() + " beats");
                eventually("acked", () -> q.stats().total() == 0);
            }
        }
    }

    @Test
    void close_gives_back_a_job_still_waiting_in_a_busy_executor_of_the_callers_without_an_attempt()
            throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_busy_executor");
        java.util.concurrent.ExecutorService one = java.util.concurrent.Executors.newSingleThreadExecutor();
        CountDownLatch blocker = new CountDownLatch(1);
        CountDownLatch busy = new CountDownLatch(1);
        one.submit(() -> {
            busy.countDown();
            blocker.await(); // the caller's executor is busy with work of its own
            return null;
        });
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("busy");
            long id = q.enqueue("waits for a thread");
            assertTrue(busy.await(10, TimeUnit.SECONDS));
            AtomicInteger runs = new AtomicInteger();
            Worker w = q.worker(job -> runs.incrementAndGet(), WorkerOptions.defaults().withThreads(1).withExecutor(one)).start();
            eventually("claimed and handed to the executor", () -> w.running() == 1);
            assertTrue(!w.close(Duration.ofMillis(100)), "the job never finished within the drain");
            List<dev.rowqueue.Job> again = q.claim(1);
            assertEquals(1, again.size(), "given back at once, not left leased");
            assertEquals(id, again.get(0).id());
            assertEquals(0, again.get(0).failures(), "no attempt counted");
            blocker.countDown();
            one.shutdown();
            assertTrue(one.awaitTermination(10, TimeUnit.SECONDS));
            assertEquals(0, runs.get(), "the handler never ran it");
        } finally {
            blocker.countDown();
            one.shutdownNow();
        }
    }

    /**
     * The default prefetch leases ahead only jobs a thread should take within the window: with one thread and short
     * jobs, claims of up to five (one to run, four ahead), once short jobs have been seen, never before the first job
     * finished, and never with jobs that outlast the window.
     */
    @Test
    void the_default_prefetch_leases_ahead_for_short_jobs_only() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_prefetch");
        int most = 1 + WorkerOptions.DEFAULT_PREFETCH_PER_THREAD;
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            assertEquals(List.of(1, 1, 1, 1), claimSizes(rq.workQueue("slow_jobs"), 4, 250),
                    "jobs of 250 ms, 2.5 windows: nothing leased ahead");
            sds.latencyMs = 20; // a claim round trip far longer than the 1 ms handler, whatever the machine's load
            List<Integer> shortJobs = claimSizes(rq.workQueue("quick_jobs"), 40, 1);
            assertEquals(1, shortJobs.get(0), "nothing ahead before a job has finished: " + shortJobs);
            assertTrue(shortJobs.contains(most), "short jobs: four ahead of the thread: " + shortJobs);
            assertTrue(shortJobs.stream().allMatch(n -> n <= most), "at most four ahead: " + shortJobs);
            // the claim waits for the jobs the thread holds to end, rather than claim one for each free prefetch slot
            assertTrue(shortJobs.size() <= 16, "claims of five, not one or two per job: " + shortJobs);
        }
    }

    /**
     * A worker whose threads plus prefetch exceed what one statement may claim or ack (1,000) claims and acks in
     * batches of at most that, and never sends a claim the queue refuses.
     */
    @Test
    void a_worker_holding_more_than_a_batch_claims_and_acks_a_batch_at_a_time() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_wide");
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("wide");
            int jobs = 3_000;
            q.enqueueAll(java.util.Collections.nCopies(jobs, "j"), dev.rowqueue.Enqueue.defaults());
            List<Integer> sizes = new CopyOnWriteArrayList<>();
            List<RuntimeException> errors = new CopyOnWriteArrayList<>();
            AtomicInteger runs = new AtomicInteger();
            WorkerListener listener = new WorkerListener() {
                @Override
                public void claimed(List<dev.rowqueue.Job> claimed) {
                    sizes.add(claimed.size());
                }

                @Override
                public void databaseError(RuntimeException error, int consecutive) {
                    errors.add(error);
                }
            };
            // 400 threads and 1,600 ahead: a first claim of 2,000 were it not split
            try (Worker w = q.worker(job -> runs.incrementAndGet(), WorkerOptions.defaults().withThreads(400)
                    .withPrefetch(1_600).withListener(listener)).start()) {
                eventually("every job ran and was acked", () -> runs.get() >= jobs && q.stats().total() == 0);
            }
            assertEquals(List.of(), errors, "no claim or ack was refused");
            assertEquals(Validation.MAX_BATCH, sizes.get(0), "the first claim asked for a batch: " + sizes);
            assertTrue(sizes.stream().allMatch(n -> n <= Validation.MAX_BATCH), "claims: " + sizes);
        }
    }

    /** Runs {@code jobs} jobs of {@code ms} each on one thread with the default options; the sizes of its claims. */
    private static List<Integer> claimSizes(WorkQueue q, int jobs, long ms) throws InterruptedException {
        q.enqueueAll(java.util.Collections.nCopies(jobs, "j"), dev.rowqueue.Enqueue.defaults());
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void claimed(List<dev.rowqueue.Job> claimed) {
                sizes.add(claimed.size());
            }
        };
        AtomicInteger runs = new AtomicInteger();
        try (Worker w = q.worker(job -> {
            TimeUnit.MILLISECONDS.sleep(ms);
            runs.incrementAndGet();
        }, WorkerOptions.defaults().withThreads(1).withListener(listener)).start()) {
            eventually("every job ran", () -> runs.get() == jobs && q.stats().total() == 0);
        }
        return sizes;
    }

    @Test
    void bad_worker_options_are_refused_before_any_sql() {
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withThreads(0));
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withThreads(2).withPrefetch(33));
        assertEquals(32, WorkerOptions.defaults().withThreads(2).withPrefetch(32).prefetch(), "up to 16 per thread");
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withThreads(2).withPrefetch(-1));
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withThreads(2).withHeartbeat(Duration.ZERO));
        assertThrows(IllegalArgumentException.class,
                () -> WorkerOptions.defaults().withThreads(2).withPrefetchWindow(Duration.ZERO));
        assertEquals(32, WorkerOptions.defaults().withThreads(8).prefetch(), "4x by default, following the threads");
        assertEquals(8, WorkerOptions.defaults().withThreads(8).withPrefetch(16).withThreads(4).prefetch(),
                "a whole number per thread follows the threads");
        assertEquals(3, WorkerOptions.defaults().withThreads(8).withPrefetch(3).withThreads(4).prefetch(),
                "another number is kept");
        assertEquals(16, WorkerOptions.defaults().withThreads(8).withPrefetch(25).withThreads(1).prefetch(),
                "lowered to 16 per thread");
        assertThrows(IllegalArgumentException.class,
                () -> WorkerOptions.defaults().withThreads(2).withDrainTimeout(Duration.ofSeconds(-1)));
        assertThrows(NullPointerException.class, () -> WorkerOptions.defaults().withThreads(2).withListener(null));
        assertThrows(IllegalArgumentException.class,
                () -> WorkerOptions.defaults().withThreads(2).withLeaseMargin(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withThreads(2)
                .withLeaseMargin(Duration.ofSeconds(1)).leaseMarginFor(Duration.ofSeconds(1)));
    }

    @Test
    void a_worker_starts_once_and_a_bound_handle_has_none() throws Exception {
        SwitchedDataSource sds = new SwitchedDataSource("worker_once");
        try (RowQueues rq = RowQueues.builder(sds.ds).build()) {
            WorkQueue q = rq.workQueue("once");
            Worker w = q.worker(job -> { }, WorkerOptions.defaults().withThreads(1)).start();
            assertThrows(IllegalStateException.class, w::start);
            assertTrue(w.close(Duration.ofSeconds(5)));
            assertTrue(w.close(Duration.ofSeconds(5)), "close is idempotent");
            try (Connection c = sds.ds.getConnection()) {
                assertThrows(UnsupportedOperationException.class,
                        () -> q.using(c).worker(job -> { }, WorkerOptions.defaults().withThreads(1)));
            }
        }
    }
}
