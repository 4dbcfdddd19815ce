package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.testkit.InterceptingDataSource;
import dev.rowqueue.testkit.TcpProxy;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a {@link Worker} tells about its leases (issue 42), for any database: scenarios a dialect module's test runs
 * on its engines. Every wait is bounded; nothing is timed for speed.
 */
public final class WorkerLeaseScenario {

    private WorkerLeaseScenario() {
    }

    /** How long any one wait of a scenario may take before it fails. */
    private static final long WAIT_MS = TimeUnit.SECONDS.toMillis(60);

    static void eventually(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + WAIT_MS + " ms: " + what);
            }
            sleep(10);
        }
    }

    static void sleep(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Leases lost, as the worker's listener was told. */
    static final class LostLeases implements WorkerListener {
        final List<Long> lost = new CopyOnWriteArrayList<>();
        final List<Integer> beats = new CopyOnWriteArrayList<>();

        @Override
        public void leaseLost(Job job) {
            lost.add(job.id());
        }

        @Override
        public void heartbeat(int jobs) {
            beats.add(jobs);
        }
    }

    /** A data source whose heartbeat statements wait, while {@link #hold} is set, until the test lets them go. */
    private static final class SlowBeats extends InterceptingDataSource {
        final AtomicBoolean hold = new AtomicBoolean();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);

        SlowBeats(DataSource delegate) {
            super(delegate);
        }

        @Override
        protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
            if (EXECUTIONS.contains(method.getName()) && Thread.currentThread().getName().contains("-heartbeat-")
                    && hold.get()) {
                held.countDown();
                if (!go.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("the test never let the held heartbeat go");
                }
            }
            return call.proceed();
        }
    }

    /**
     * No false alarm: a job whose handler returns while a heartbeat's extension of its lease is in flight is acked,
     * and the extension, which then finds the job gone, does not call its lease lost.
     *
     * @param dataSource the database
     * @param queue      a fresh queue name
     */
    public static void ackDuringSlowBeat(DataSource dataSource, String queue) {
        SlowBeats slow = new SlowBeats(dataSource);
        LostLeases listener = new LostLeases();
        try (RowQueues rq = RowQueues.builder(slow).build()) {
            WorkQueue q = rq.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(30)));
            q.create();
            q.enqueue("slow beat", Enqueue.defaults());
            CountDownLatch running = new CountDownLatch(1);
            try (Worker w = q.worker(job -> {
                running.countDown();
                if (!slow.held.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("no heartbeat came while the job ran");
                }
            }, WorkerOptions.defaults().withThreads(1).withHeartbeat(Duration.ofMillis(300)).withListener(listener)).start()) {
                awaitLatch(running);
                slow.hold.set(true); // the next beat's extension of the running job waits: the handler returns meanwhile
                eventually("the job acked while the heartbeat's extension waited", () -> q.stats().total() == 0);
                slow.hold.set(false);
                // the heartbeat thread waits in the held beat, so no other beat reports until it is let go
                listener.beats.clear();
                slow.go.countDown();
                eventually("the held heartbeat of the job reported", () -> listener.beats.contains(1));
            }
        }
        assertEquals(List.of(), listener.lost, "a job that ran once and was acked is not a lost lease");
    }

    /** One run of a job by a handler. */
    private record Run(String worker, long startNanos, AtomicLong lostSeenNanos) {
    }

    /** A server's address and pools to it, directly or through a loopback port. */
    public interface Network {
        /** @return the server's host */
        String host();

        /** @return the server's port */
        int port();

        /**
         * @param port a loopback port that relays to the server
         * @return a connection pool whose connections go through that port; closed by the scenario if closeable
         */
        DataSource through(int port);
    }

    /**
     * Known lease ends: two workers on separate pools, one pool's connections through a {@link TcpProxy} that stops
     * forwarding while the cut-off worker's handlers run 10 s jobs under a 3 s lease. The other worker claims each job
     * after its lease ends; for every job run twice, the first run saw {@code leaseLost()} before the second run
     * started.
     *
     * @param direct  the database, directly
     * @param network how to reach it through a proxy
     * @param queue   a fresh queue name
     * @throws Exception if the proxy cannot start
     */
    public static void cutOffWorkerKnowsFirst(DataSource direct, Network network, String queue) throws Exception {
        int jobs = 4;
        Duration lease = Duration.ofSeconds(3);
        long handlerNanos = TimeUnit.SECONDS.toNanos(10);
        Map<Long, List<Run>> runs = new ConcurrentHashMap<>();
        try (TcpProxy proxy = new TcpProxy(network.host(), network.port())) {
            DataSource cutOff = network.through(proxy.port());
            try (RowQueues near = RowQueues.builder(direct).build(); RowQueues far = RowQueues.builder(cutOff).build()) {
                WorkQueueOptions options = WorkQueueOptions.defaults().withLeaseDuration(lease);
                WorkQueue q = near.workQueue(queue, options).create();
                q.enqueueAll(java.util.Collections.nCopies(jobs, "ten seconds"), Enqueue.defaults());
                WorkerOptions workers = WorkerOptions.defaults().withThreads(jobs).withPrefetch(0);
                try (Worker a = far.workQueue(queue, options).worker(ctx -> run(ctx, "cut off", handlerNanos, runs),
                        workers).start()) {
                    eventually("the cut-off worker runs every job", () -> runs.size() == jobs);
                    proxy.cut();
                    try (Worker b = q.worker(ctx -> run(ctx, "connected", handlerNanos, runs), workers).start()) {
                        eventually("the connected worker runs every job after its lease",
                                () -> runs.values().stream().allMatch(r -> r.size() >= 2));
                        proxy.heal();
                        eventually("every job acked", () -> q.stats().total() == 0);
                    }
                }
            } finally {
                proxy.heal();
                if (cutOff instanceof AutoCloseable c) {
                    c.close();
                }
            }
        }
        int twice = 0;
        for (Map.Entry<Long, List<Run>> e : runs.entrySet()) {
            List<Run> ordered = new ArrayList<>(e.getValue());
            ordered.sort(java.util.Comparator.comparingLong(Run::startNanos));
            for (int i = 1; i < ordered.size(); i++) {
                twice++;
                Run first = ordered.get(i - 1);
                Run second = ordered.get(i);
                long seen = first.lostSeenNanos().get();
                assertTrue(seen != 0 && seen - second.startNanos() < 0, "job " + e.getKey() + ": its run on the "
                        + first.worker() + " worker " + (seen == 0 ? "never saw leaseLost()" : "saw leaseLost() "
                        + TimeUnit.NANOSECONDS.toMillis(seen - second.startNanos()) + " ms after")
                        + " the run on the " + second.worker() + " worker started");
            }
        }
        assertTrue(twice >= jobs, "the cut made the connected worker run every job again: " + twice);
    }

    private static void run(dev.rowqueue.JobContext ctx, String worker, long forNanos, Map<Long, List<Run>> runs)
            throws InterruptedException {
        Run run = new Run(worker, System.nanoTime(), new AtomicLong());
        runs.computeIfAbsent(ctx.id(), id -> new CopyOnWriteArrayList<>()).add(run);
        try {
            while (System.nanoTime() - run.startNanos() < forNanos) {
                if (ctx.leaseLost()) {
                    run.lostSeenNanos().compareAndSet(0, System.nanoTime());
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
        } catch (InterruptedException e) {
            if (ctx.leaseLost()) {
                run.lostSeenNanos().compareAndSet(0, System.nanoTime());
            }
            throw e;
        }
    }

    static void awaitLatch(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT_MS, TimeUnit.MILLISECONDS), "not within " + WAIT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
