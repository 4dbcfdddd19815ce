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

    /**
     * Every wait bounded: a worker whose connections go through a proxy that stops answering (without closing) has a
     * heartbeat statement in flight; it is abandoned within the heartbeat's bound (the lease less the margin and the
     * period), not when the cut heals; and after the heal the worker claims a new job within the lease plus the
     * statement timeout.
     *
     * @param direct  the database, directly
     * @param network how to reach it through a proxy
     * @param queue   a fresh queue name
     * @throws Exception if the proxy cannot start
     */
    public static void blackHoleIsBounded(DataSource direct, Network network, String queue) throws Exception {
        Duration lease = Duration.ofSeconds(3);
        Duration heartbeat = Duration.ofSeconds(1);
        Duration statementTimeout = Duration.ofSeconds(2);
        // the heartbeat's bound: the lease less the default margin (250 ms) and the period
        long beatBoundMs = lease.toMillis() - 250 - heartbeat.toMillis();
        List<Long> errors = new CopyOnWriteArrayList<>();
        Map<String, Long> started = new ConcurrentHashMap<>();
        CountDownLatch finish = new CountDownLatch(1);
        AtomicBoolean heldOnce = new AtomicBoolean();
        try (TcpProxy proxy = new TcpProxy(network.host(), network.port())) {
            DataSource cutOff = network.through(proxy.port());
            SlowBeats slow = new SlowBeats(cutOff);
            try (RowQueues near = RowQueues.builder(direct).build();
                 RowQueues far = RowQueues.builder(slow).statementTimeout(statementTimeout).build()) {
                WorkQueueOptions options = WorkQueueOptions.defaults().withLeaseDuration(lease);
                WorkQueue q = near.workQueue(queue, options).create();
                q.enqueue("held", Enqueue.defaults());
                WorkerListener listener = new WorkerListener() {
                    @Override
                    public void databaseError(RuntimeException error, int consecutive) {
                        errors.add(System.nanoTime());
                    }
                };
                try (Worker w = far.workQueue(queue, options).worker(ctx -> {
                    started.putIfAbsent(ctx.payload(), System.nanoTime());
                    if (ctx.payload().equals("held") && heldOnce.compareAndSet(false, true)) {
                        finish.await(WAIT_MS, TimeUnit.MILLISECONDS); // until its lease is lost (interrupted)
                    }
                }, WorkerOptions.defaults().withThreads(2).withHeartbeat(heartbeat).withListener(listener)).start()) {
                    eventually("the held job runs", () -> started.containsKey("held"));
                    slow.hold.set(true);
                    awaitLatch(slow.held); // a heartbeat waits to send its statement
                    proxy.cut();
                    errors.clear();
                    long sent = System.nanoTime();
                    slow.go.countDown(); // the statement goes into the black hole
                    long cutFor = TimeUnit.MILLISECONDS.toNanos(3 * statementTimeout.toMillis());
                    while (errors.isEmpty() && System.nanoTime() - sent < cutFor) {
                        sleep(10);
                    }
                    assertTrue(!errors.isEmpty(), "the black-holed heartbeat failed before the cut healed, "
                            + TimeUnit.NANOSECONDS.toMillis(cutFor) + " ms after it was sent");
                    long abandonedMs = TimeUnit.NANOSECONDS.toMillis(errors.get(0) - sent);
                    assertTrue(abandonedMs <= beatBoundMs + 1_000, "the black-holed heartbeat was abandoned "
                            + abandonedMs + " ms after it was sent; its bound is " + beatBoundMs + " ms");
                    sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(cutFor - (System.nanoTime() - sent))));
                    proxy.heal();
                    long healed = System.nanoTime();
                    q.enqueue("after", Enqueue.defaults());
                    eventually("a job enqueued after the heal runs", () -> started.containsKey("after"));
                    long claimMs = TimeUnit.NANOSECONDS.toMillis(started.get("after") - healed);
                    long limitMs = lease.toMillis() + statementTimeout.toMillis();
                    assertTrue(claimMs <= limitMs + 1_000, "the worker claimed again " + claimMs
                            + " ms after the heal; lease + statement timeout is " + limitMs + " ms");
                    System.out.println("black hole: heartbeat abandoned after " + abandonedMs + " ms (bound "
                            + beatBoundMs + " ms); claimed again " + claimMs + " ms after the heal");
                    finish.countDown();
                }
            } finally {
                finish.countDown();
                proxy.heal();
                if (cutOff instanceof AutoCloseable c) {
                    c.close();
                }
            }
        }
    }

    /**
     * Connection kills: a worker whose connections go through a proxy that closes them all every 100 ms runs a queue
     * of short jobs with {@code maxAttempts(1)}. Every job runs exactly once, at attempt 1; none is dead; no lease is
     * reported lost. Prints the figures (kills, unknown outcomes, alarms, attempts burned).
     *
     * @param direct  the database, directly (the producer)
     * @param network how to reach it through a proxy (the worker)
     * @param queue   a fresh queue name
     * @throws Exception if the proxy cannot start
     */
    public static void connectionKills(DataSource direct, Network network, String queue) throws Exception {
        int jobs = 2_000;
        LostLeases alarms = new LostLeases();
        java.util.concurrent.atomic.AtomicInteger unknown = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger errors = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger kills = new java.util.concurrent.atomic.AtomicInteger();
        Map<Long, List<Integer>> attempts = new ConcurrentHashMap<>();
        List<Job> dead;
        try (TcpProxy proxy = new TcpProxy(network.host(), network.port())) {
            DataSource cutOff = network.through(proxy.port());
            try (RowQueues near = RowQueues.builder(direct).build(); RowQueues far = RowQueues.builder(cutOff).build()) {
                WorkQueueOptions options = WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(5))
                        .withMaxAttempts(1);
                WorkQueue q = near.workQueue(queue, options).create();
                q.enqueueAll(java.util.Collections.nCopies(jobs, "killed"), Enqueue.defaults());
                WorkerListener listener = new WorkerListener() {
                    @Override
                    public void leaseLost(Job job) {
                        alarms.leaseLost(job);
                    }

                    @Override
                    public void databaseError(RuntimeException error, int consecutive) {
                        errors.incrementAndGet();
                        if (error instanceof dev.rowqueue.UnknownCommitOutcomeException) {
                            unknown.incrementAndGet();
                        }
                    }
                };
                AtomicBoolean killing = new AtomicBoolean(true);
                Thread killer = new Thread(() -> {
                    while (killing.get()) {
                        sleep(100);
                        proxy.killConnections();
                        kills.incrementAndGet();
                    }
                }, "connection-killer");
                try (Worker w = far.workQueue(queue, options).worker(ctx -> {
                    attempts.computeIfAbsent(ctx.id(), id -> new CopyOnWriteArrayList<>()).add(ctx.attempt());
                    TimeUnit.MILLISECONDS.sleep(5);
                }, WorkerOptions.defaults().withThreads(4).withListener(listener)).start()) {
                    killer.start();
                    eventually("no live job left", () -> {
                        dev.rowqueue.QueueStats st = q.stats();
                        return st.ready() + st.scheduled() + st.leased() == 0;
                    });
                    killing.set(false);
                    killer.join();
                }
                dead = q.deadLetters(jobs);
            } finally {
                if (cutOff instanceof AutoCloseable c) {
                    c.close();
                }
            }
        }
        long burned = attempts.values().stream().flatMap(List::stream).filter(a -> a > 1).count();
        long twice = attempts.values().stream().filter(l -> l.size() > 1).count();
        System.out.println("connection kills: " + kills.get() + " kills, " + errors.get() + " database errors ("
                + unknown.get() + " unknown outcomes), " + attempts.size() + "/" + jobs + " jobs ran, " + twice
                + " twice, " + burned + " runs at attempt > 1, " + dead.size() + " dead, " + alarms.lost.size()
                + " lost-lease alarms");
        assertEquals(List.of(), alarms.lost, "no lease was lost, none reported");
        assertEquals(List.of(), dead.stream().map(Job::id).toList(), "no job dead");
        assertEquals(jobs, attempts.size(), "every job ran");
        attempts.forEach((id, seen) -> assertEquals(List.of(1), seen, "job " + id + " ran once, at attempt 1"));
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

    /**
     * A data source that loses the answer of one in {@code every} operations (counted, not at random) of a worker's
     * claim thread after the database ran it (a statement in auto-commit mode, or a commit): the connection "dies" with
     * SQLState 08006 once the work may have committed, so a claim or an ack-and-claim fails with an unknown outcome
     * while its jobs are leased.
     */
    private static final class LostAnswers extends InterceptingDataSource {
        final AtomicBoolean armed = new AtomicBoolean();
        final int every;
        final java.util.concurrent.atomic.AtomicInteger lost = new java.util.concurrent.atomic.AtomicInteger();

        LostAnswers(DataSource delegate, int every) {
            super(delegate);
            this.every = every;
        }

        /**
         * Calls that could be struck; every {@code every}th is, from the second on. Not at random: a worker that claims
         * up to 20 jobs a statement makes only 25-35 such calls for 300 jobs, and one in six at random then missed
         * them all in about 1 run of 200 (seen in CI: "0 of 0 lost answers").
         */
        private final java.util.concurrent.atomic.AtomicInteger eligible = new java.util.concurrent.atomic.AtomicInteger();

        private Object strike(Call call) throws Throwable {
            Object result = call.proceed();
            if (armed.get() && Thread.currentThread().getName().contains("-claims-")
                    && eligible.incrementAndGet() % every == 2 % every) {
                lost.incrementAndGet();
                throw new java.sql.SQLException("the connection died before the answer came (test)", "08006");
            }
            return result;
        }

        /** Whether the thread's connection is in auto-commit mode, as the calls on it told. */
        private final ThreadLocal<Boolean> autoCommit = ThreadLocal.withInitial(() -> true);

        @Override
        protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
            switch (method.getName()) {
                case "commit":
                    return strike(call); // the end of a transaction
                case "setAutoCommit":
                    autoCommit.set((Boolean) args[0]);
                    return call.proceed();
                case "getAutoCommit":
                    Object auto = call.proceed();
                    autoCommit.set((Boolean) auto);
                    return auto;
                default:
                    return call.proceed();
            }
        }

        @Override
        protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
            // a statement in auto-commit mode is a whole operation; in a transaction only the commit may be struck
            return EXECUTIONS.contains(method.getName()) && autoCommit.get() ? strike(call) : call.proceed();
        }
    }

    /**
     * Claims of unknown outcome are resolved: a worker of a queue with {@code maxAttempts(1)} whose claims' answers
     * are lost after they committed runs every job once, at its first attempt; none is dead, and no lease is called
     * lost (the acks that rode on such a claim had taken effect).
     *
     * @param dataSource the database
     * @param queue      a fresh queue name
     */
    public static void lostClaimAnswersBurnNoAttempt(DataSource dataSource, String queue) {
        int jobs = 300;
        LostAnswers faulty = new LostAnswers(dataSource, 6);
        LostLeases listener = new LostLeases();
        java.util.concurrent.atomic.AtomicInteger unknown = new java.util.concurrent.atomic.AtomicInteger();
        Map<Long, List<Integer>> attempts = new ConcurrentHashMap<>();
        List<Job> dead;
        try (RowQueues rq = RowQueues.builder(faulty).build()) {
            WorkQueue q = rq.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(2))
                    .withMaxAttempts(1)).create();
            q.enqueueAll(java.util.Collections.nCopies(jobs, "once"), Enqueue.defaults());
            WorkerListener counting = new WorkerListener() {
                @Override
                public void leaseLost(Job job) {
                    listener.leaseLost(job);
                }

                @Override
                public void databaseError(RuntimeException error, int consecutive) {
                    if (error instanceof dev.rowqueue.UnknownCommitOutcomeException) {
                        unknown.incrementAndGet();
                    }
                }
            };
            faulty.armed.set(true);
            try (Worker w = q.worker(ctx -> {
                attempts.computeIfAbsent(ctx.id(), id -> new CopyOnWriteArrayList<>()).add(ctx.attempt());
                TimeUnit.MILLISECONDS.sleep(2);
            }, WorkerOptions.defaults().withThreads(4).withListener(counting)).start()) {
                eventually("no live job left", () -> {
                    dev.rowqueue.QueueStats st = q.stats();
                    return st.ready() + st.scheduled() + st.leased() == 0;
                });
                faulty.armed.set(false);
            }
            dead = q.deadLetters(jobs);
        }
        assertTrue(unknown.get() > 0, "claims failed with an unknown outcome: " + unknown.get() + " of "
                + faulty.lost.get() + " lost answers");
        assertEquals(List.of(), dead.stream().map(Job::id).toList(), "no job is dead that no handler ran");
        assertEquals(jobs, attempts.size(), "every job ran");
        attempts.forEach((id, seen) -> assertEquals(List.of(1), seen, "job " + id + " ran once, at attempt 1"));
        assertEquals(List.of(), listener.lost, "no lease was lost");
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
