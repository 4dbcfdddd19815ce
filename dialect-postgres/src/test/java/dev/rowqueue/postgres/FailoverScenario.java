package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.testkit.CountingDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Producers, ring pushers, counter incrementers, plain consumers and a {@link Worker} run on a
 * {@link ReplicatedPostgres} pair through one multi-host URL ({@code targetServerType=primary}) while the primary is
 * killed with SIGKILL and the standby promoted, several times; a new standby is made after each promotion. Every
 * operation is recorded with its outcome, then the history is checked against the last primary:
 * <ul>
 *   <li>every enqueue reported successful ran (or its job is still there), once per payload; a transiently failed
 *       one never ran;</li>
 *   <li>every ring push reported successful is there under its number; no number was reported twice; a transiently
 *       failed push is nowhere;</li>
 *   <li>no increment's returned value was returned twice, and the counter is the reported increments plus at most
 *       the ones of unknown outcome;</li>
 *   <li>no job ran again after an ack reported {@code true}, and no two runs of a job overlapped while the first
 *       one's lease lived;</li>
 *   <li>errors are {@link TransientRowQueueException} (nothing applied) or {@link UnknownCommitOutcomeException};
 *       anything else is counted, with samples.</li>
 * </ul>
 * Before each kill, a pool on the standby alone checks that writes fail at once with SQLState 25006 and that a
 * worker on it backs off; after each promotion, an idle worker that polls only every {@link #IDLE_POLL} must start a
 * newly enqueued job long before that (its {@code LISTEN} must be back, on the new primary).
 *
 * <p>In synchronous mode every loss is an anomaly. In asynchronous mode losses are the measurement
 * ({@link Figures#lost()}): the database acknowledged writes its standby never received.
 */
final class FailoverScenario {

    /** The lease of the work queue under load. */
    static final Duration LEASE = Duration.ofSeconds(3);
    /** The idle worker's poll interval, listening or not: far longer than the wait for its job. */
    static final Duration IDLE_POLL = Duration.ofMinutes(5);
    /** How long the idle worker's job may take to start: a fraction of {@link #IDLE_POLL}. */
    static final Duration WAKE_PATIENCE = Duration.ofSeconds(60);
    private static final long PATIENCE_MS = 60_000;
    /** The most claims, or listener connections, a worker on the standby may make in two seconds. */
    private static final int MAX_STALE_ATTEMPTS = 10;
    private static final String DATABASE = "failover";

    /** How an operation ended. */
    enum Outcome { OK, TRANSIENT, UNKNOWN, OTHER }

    /** One operation: its role, when it ran (this JVM's nanoTime) and how it ended. */
    private record Op(String role, long start, long end, Outcome outcome) {
    }

    /** One execution of a job, by the worker or a plain consumer, on this JVM's clock. */
    private record Run(String payload, long id, Instant start, Instant end, Instant leaseUntil, boolean leaseLost,
                       Instant ackedAt) {
    }

    /** The standby checks of one round. */
    record Stale(String sqlState, String message, int enqueueAttempts, int pushAttempts, int incrementAttempts,
                 long workerClaims, long listenerConnects, long windowMillis) {
    }

    /**
     * One promotion.
     *
     * @param promoteMillis  from the kill to {@code pg_promote()} (the scenario's promotion delay, plus the kill)
     * @param resumeMillis   from the kill to the first success of the slowest role (an operation started after the
     *                       kill)
     * @param resumeByRole   the same per role
     * @param inFlight       operations running at the kill, by outcome
     * @param window         operations that ended between the kill and the last role's resumption, by outcome
     * @param wakeMillis     from the idle worker's job's enqueue to its start
     */
    record Round(int number, String killed, String promoted, long promoteMillis, long resumeMillis,
                 Map<String, Long> resumeByRole, Map<Outcome, Long> inFlight, Map<Outcome, Long> window,
                 long wakeMillis, Stale stale) {
        long inFlightTotal() {
            return inFlight.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Acknowledged writes missing after the promotions, by kind. */
    record Lost(long enqueues, long pushes, long increments, long acks, long leases) {
        long total() {
            return enqueues + pushes + increments + acks + leases;
        }
    }

    /** What a run saw. */
    record Figures(ReplicatedPostgres.Mode mode, String version, long seconds, List<Round> rounds,
                   Map<Outcome, Long> outcomes, Map<String, Map<Outcome, Long>> byRole, long enqueues, long pushes, long increments, long runs, Lost lost,
                   List<String> anomalies, List<String> otherErrors) {

        /** @return the figures as a Markdown table and a few lines */
        String report() {
            StringBuilder b = new StringBuilder();
            b.append("PostgreSQL ").append(version).append(", ").append(mode.name().toLowerCase()).append(" standby, ")
                    .append(rounds.size()).append(" promotions in ").append(seconds).append(" s: ").append(enqueues)
                    .append(" enqueues, ").append(pushes).append(" pushes, ").append(increments)
                    .append(" increments, ").append(runs).append(" job runs; outcomes ").append(outcomes)
                    .append(", by role ").append(byRole).append("\n");
            b.append("| Promotion | pg_promote() after the kill (s) | All roles resumed after the kill (s) | After"
                    + " pg_promote() (s) | In flight at the kill | Outcomes until resumed | Idle worker's job started"
                    + " after (ms) | Pool on the standby: SQLState, attempts per write, worker claims / listener"
                    + " connections in ").append(rounds.isEmpty() ? 0 : rounds.get(0).stale().windowMillis() / 1000)
                    .append(" s |\n|---|---|---|---|---|---|---|---|\n");
            for (Round r : rounds) {
                b.append("| ").append(r.number()).append(" (").append(r.killed()).append(" killed, ")
                        .append(r.promoted()).append(" promoted) | ").append(seconds(r.promoteMillis())).append(" | ")
                        .append(seconds(r.resumeMillis())).append(" | ")
                        .append(seconds(r.resumeMillis() - r.promoteMillis())).append(" | ").append(r.inFlightTotal())
                        .append(" ").append(r.inFlight()).append(" | ").append(r.window()).append(" | ")
                        .append(r.wakeMillis()).append(" | ").append(r.stale().sqlState()).append(", ")
                        .append(r.stale().enqueueAttempts()).append("/").append(r.stale().pushAttempts()).append("/")
                        .append(r.stale().incrementAttempts()).append(", ").append(r.stale().workerClaims())
                        .append(" / ").append(r.stale().listenerConnects()).append(" |\n");
            }
            b.append("resumed per role (ms): ").append(rounds.stream().map(Round::resumeByRole).toList()).append("\n");
            b.append("acknowledged writes missing: ").append(lost).append("\n");
            b.append("anomalies: ").append(anomalies.size()).append(anomalies.isEmpty() ? "" : " " + anomalies
                    .stream().limit(20).toList()).append("\n");
            if (!otherErrors.isEmpty()) {
                b.append("other errors (samples): ").append(otherErrors).append("\n");
            }
            return b.toString();
        }

        private static String seconds(long millis) {
            return String.format(java.util.Locale.ROOT, "%.2f", millis / 1000.0);
        }
    }

    private final ReplicatedPostgres pg;
    private final int promotions;
    private final List<Duration> promotionDelays;
    private final Duration loadBefore;
    private final Duration loadAfter;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> anomalies = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> otherErrors = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> enqueued = new ConcurrentHashMap<>();
    private final Set<String> enqueueUnknown = ConcurrentHashMap.newKeySet();
    private final Set<String> enqueueFailed = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> pushed = new ConcurrentHashMap<>();
    private final Map<Long, String> numbers = new ConcurrentHashMap<>();
    private final Set<String> pushUnknown = ConcurrentHashMap.newKeySet();
    private final Set<String> pushFailed = ConcurrentHashMap.newKeySet();
    private final Map<Long, Long> incrementValues = new ConcurrentHashMap<>();
    private final AtomicLong increments = new AtomicLong();
    private final AtomicLong incrementUnknown = new AtomicLong();
    private final Map<String, List<Run>> runs = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Long> workerClaims = new ConcurrentLinkedQueue<>();
    private final Map<String, Long> idleStarts = new ConcurrentHashMap<>();
    private final AtomicLong idleCallbacks = new AtomicLong();

    /**
     * @param pg              the pair, with database {@value #DATABASE}
     * @param promotions      how many times to kill the primary
     * @param promotionDelays how long after each kill the standby is promoted (a failover manager's decision time),
     *                        used in turn
     * @param loadBefore      load before each kill
     * @param loadAfter       load after each resumption, before the next standby is made
     */
    FailoverScenario(ReplicatedPostgres pg, int promotions, List<Duration> promotionDelays, Duration loadBefore,
                     Duration loadAfter) {
        this.pg = pg;
        this.promotions = promotions;
        this.promotionDelays = List.copyOf(promotionDelays);
        this.loadBefore = loadBefore;
        this.loadAfter = loadAfter;
    }

    /** @return the database the scenario needs on the pair */
    static String database() {
        return DATABASE;
    }

    /**
     * Runs the load and the promotions, drains the queue and checks the history.
     *
     * @return the figures
     * @throws InterruptedException if interrupted
     */
    Figures run() throws InterruptedException {
        long started = System.nanoTime();
        String url = pg.url(DATABASE);
        List<Round> rounds = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        WorkQueueOptions options = WorkQueueOptions.defaults().leaseDuration(LEASE).maxAttempts(1_000_000)
                .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(100));
        try (HikariDataSource pool = ReplicatedPostgres.pool(url, "rowqueue-load", 20);
             HikariDataSource idlePool = ReplicatedPostgres.pool(url, "rowqueue-idle", 3);
             RowQueues rq = RowQueues.builder(pool).build()) {
            CountingDataSource idleCounting = new CountingDataSource(idlePool);
            RowQueues idleRq = RowQueues.builder(idleCounting).pollInterval(IDLE_POLL)
                    .dialectOption(PostgresDialect.OPTION_WAKEUP_POLL_MILLIS, String.valueOf(IDLE_POLL.toMillis()))
                    .build();
            WorkQueue jobs = rq.workQueue("fo_jobs", options);
            RingQueue ring = rq.ring("fo_ring", 1_000_000);
            Counters counters = rq.counters("fo_counts");
            WorkQueue idleQueue = idleRq.workQueue("fo_idle", options);
            jobs.stats();
            idleQueue.stats();
            ring.size("g");
            counters.get("k");

            for (int p = 0; p < 2; p++) {
                String prefix = "e" + p + "-";
                threads.add(loop("fo-enqueue-" + p, i -> {
                    String payload = prefix + i;
                    Outcome o = attempt("enqueue", () -> {
                        long id = jobs.enqueue(payload);
                        enqueued.put(payload, id);
                    });
                    if (o == Outcome.UNKNOWN || o == Outcome.OTHER) {
                        enqueueUnknown.add(payload);
                    } else if (o == Outcome.TRANSIENT) {
                        enqueueFailed.add(payload);
                    }
                    pause(3);
                }));
            }
            for (int p = 0; p < 2; p++) {
                String prefix = "r" + p + "-";
                threads.add(loop("fo-push-" + p, i -> {
                    String payload = prefix + i;
                    Outcome o = attempt("push", () -> {
                        long seq = ring.push("g", payload);
                        pushed.put(payload, seq);
                        String before = numbers.putIfAbsent(seq, payload);
                        if (before != null) {
                            anomalies.add("ring: number " + seq + " reported for " + before + " and " + payload);
                        }
                    });
                    if (o == Outcome.UNKNOWN || o == Outcome.OTHER) {
                        pushUnknown.add(payload);
                    } else if (o == Outcome.TRANSIENT) {
                        pushFailed.add(payload);
                    }
                    pause(2);
                }));
            }
            for (int p = 0; p < 2; p++) {
                threads.add(loop("fo-count-" + p, i -> {
                    Outcome o = attempt("increment", () -> {
                        long value = counters.increment("k");
                        increments.incrementAndGet();
                        if (incrementValues.merge(value, 1L, Long::sum) > 1) {
                            anomalies.add("counter: value " + value + " returned by two increments");
                        }
                    });
                    if (o == Outcome.UNKNOWN || o == Outcome.OTHER) {
                        incrementUnknown.incrementAndGet();
                    }
                    pause(2);
                }));
            }
            for (int c = 0; c < 2; c++) {
                threads.add(loop("fo-consume-" + c, i -> {
                    List<Job> claimed = new ArrayList<>();
                    attempt("claim", () -> claimed.addAll(jobs.claim(5)));
                    for (Job job : claimed) {
                        Instant start = Instant.now();
                        pause(ThreadLocalRandom.current().nextInt(2));
                        Instant end = Instant.now();
                        AtomicBoolean acked = new AtomicBoolean();
                        attempt("ack", () -> acked.set(jobs.ack(job)));
                        record(new Run(job.payload(), job.id(), start, end, job.leaseUntil(), !acked.get(),
                                acked.get() ? Instant.now() : null));
                    }
                    if (claimed.isEmpty()) {
                        pause(5);
                    }
                }));
            }
            Worker worker = jobs.worker(ctx -> {
                Instant start = Instant.now();
                pause(ThreadLocalRandom.current().nextInt(3));
                record(new Run(ctx.payload(), ctx.id(), start, Instant.now(), ctx.leaseUntil(), ctx.leaseLost(),
                        null));
            }, WorkerOptions.threads(4).withListener(new WorkerListener() {
                @Override
                public void claimed(List<Job> claimed) {
                    workerClaims.add(System.nanoTime());
                }
            }));
            Worker idleWorker = idleQueue.worker(ctx -> idleStarts.put(ctx.payload(), System.nanoTime()),
                    WorkerOptions.threads(1).withListener(new WorkerListener() {
                        @Override
                        public void idle() {
                            idleCallbacks.incrementAndGet();
                        }
                    }));
            threads.forEach(Thread::start);
            worker.start();
            idleWorker.start();
            try {
                TimeUnit.NANOSECONDS.sleep(loadBefore.toNanos());
                for (int r = 1; r <= promotions; r++) {
                    rounds.add(promotion(r, idleCounting, idleQueue));
                    if (r < promotions) {
                        TimeUnit.NANOSECONDS.sleep(loadAfter.toNanos());
                        pg.rebuildStandby();
                        TimeUnit.NANOSECONDS.sleep(loadBefore.toNanos());
                    }
                }
                TimeUnit.NANOSECONDS.sleep(loadAfter.toNanos());
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(PATIENCE_MS);
                    if (t.isAlive()) {
                        anomalies.add("liveness: " + t.getName() + " did not stop");
                    }
                }
            }
            drain(jobs, worker);
            idleWorker.close(Duration.ofSeconds(5));
            idleRq.close();
            List<String> found = check(jobs, ring, counters);
            Lost lost = lost(ring, counters);
            Map<Outcome, Long> outcomes = count(ops.stream().toList());
            return new Figures(pg.mode(), pg.version(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                    rounds, outcomes, byRole(ops.stream().toList()), enqueued.size(), pushed.size(), increments.get(),
                    runs.values().stream().mapToLong(List::size).sum(), lost, found,
                    otherErrors.stream().limit(10).toList());
        }
    }

    // ---------------------------------------------------------------- one promotion

    private Round promotion(int number, CountingDataSource idleCounting, WorkQueue idleQueue)
            throws InterruptedException {
        Stale stale = staleStandby(pg.standby());
        long idleBefore = idleCallbacks.get();
        ReplicatedPostgres.Node killed = pg.killPrimary();
        long kill = killed.killedAt;
        long gone = killed.goneAt;
        Duration delay = promotionDelays.get((number - 1) % promotionDelays.size());
        TimeUnit.NANOSECONDS.sleep(kill + delay.toNanos() - System.nanoTime());
        ReplicatedPostgres.Node promoted = pg.promoteStandby();

        Map<String, Long> resume = new LinkedHashMap<>();
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        List<String> roles = List.of("enqueue", "push", "increment", "claim", "ack", "worker");
        while (resume.size() < roles.size() && System.currentTimeMillis() < deadline) {
            for (String role : roles) {
                if (!resume.containsKey(role)) {
                    // a success that started once the old primary was gone: the new primary served it (until its
                    // last process died, the old one may still commit what its walsender could send)
                    long first = role.equals("worker")
                            ? workerClaims.stream().filter(t -> t > gone).mapToLong(Long::longValue).min().orElse(-1)
                            : ops.stream().filter(o -> o.role().equals(role) && o.start() > gone
                                    && o.outcome() == Outcome.OK).mapToLong(Op::end).min().orElse(-1);
                    if (first > 0) {
                        resume.put(role, TimeUnit.NANOSECONDS.toMillis(first - kill));
                    }
                }
            }
            pause(20);
        }
        for (String role : roles) {
            if (!resume.containsKey(role)) {
                anomalies.add("promotion " + number + ": " + role + " did not resume within " + PATIENCE_MS + " ms");
            }
        }
        long resumed = resume.values().stream().mapToLong(Long::longValue).max().orElse(PATIENCE_MS);
        long resumedAt = kill + TimeUnit.MILLISECONDS.toNanos(resumed);
        List<Op> all = ops.stream().toList();
        Map<Outcome, Long> inFlight = count(all.stream().filter(o -> o.start() < kill && o.end() > kill).toList());
        Map<Outcome, Long> window = count(all.stream().filter(o -> o.end() > kill && o.end() <= resumedAt).toList());

        long wake = idleWakeup(number, idleBefore, idleCounting, idleQueue, promoted);
        return new Round(number, killed.name, promoted.name,
                TimeUnit.NANOSECONDS.toMillis(promoted.promotedAt - kill), resumed, resume, inFlight, window, wake,
                stale);
    }

    /**
     * The idle worker, which polls only every {@link #IDLE_POLL}, must start a job enqueued after the promotion well
     * within that: its listener is back on the new primary, and the notification wakes it.
     */
    private long idleWakeup(int number, long idleBefore, CountingDataSource idleCounting, WorkQueue idleQueue,
                            ReplicatedPostgres.Node primary) throws InterruptedException {
        String listening = "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'rowqueue-idle'"
                + " AND (query LIKE 'LISTEN %' OR query = 'SELECT 1')";
        if (!eventually(() -> queryLong(primary, listening) == 1)) {
            anomalies.add("promotion " + number + ": the idle worker's LISTEN connection never came back on "
                    + primary);
            return -1;
        }
        if (!eventually(() -> idleCallbacks.get() > idleBefore)) {
            anomalies.add("promotion " + number + ": the idle worker never claimed again on " + primary);
            return -1;
        }
        // quiet: the idle worker sent nothing for half a second, so it waits (on its wake-up, or its long poll)
        long seen = idleCounting.executions();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(500)) {
            pause(20);
            long now = idleCounting.executions();
            if (now != seen) {
                seen = now;
                quietSince = System.nanoTime();
            }
        }
        String payload = "idle-" + number;
        long enqueuedAtNanos = System.nanoTime();
        boolean enqueued = false;
        for (int attempt = 0; attempt < 10 && !enqueued; attempt++) {
            try {
                idleQueue.enqueue(payload);
                enqueued = true;
            } catch (TransientRowQueueException e) {
                pause(100);
            }
        }
        if (!enqueued) {
            anomalies.add("promotion " + number + ": could not enqueue the idle worker's job");
            return -1;
        }
        long limit = System.nanoTime() + WAKE_PATIENCE.toNanos();
        while (!idleStarts.containsKey(payload) && System.nanoTime() < limit) {
            pause(5);
        }
        Long start = idleStarts.get(payload);
        if (start == null) {
            anomalies.add("promotion " + number + ": the idle worker did not start a job enqueued on the new primary"
                    + " within " + WAKE_PATIENCE.toSeconds() + " s (it polls every " + IDLE_POLL.toMinutes()
                    + " min): no wake-up");
            return -1;
        }
        return TimeUnit.NANOSECONDS.toMillis(start - enqueuedAtNanos);
    }

    /**
     * A pool on the standby alone, before its promotion: writes must fail at once with SQLState 25006 (one attempt
     * each, no retries), and a worker on it must back off instead of claiming in a loop.
     */
    private Stale staleStandby(ReplicatedPostgres.Node standby) {
        long window = 2_000;
        try (HikariDataSource pool = ReplicatedPostgres.pool(ReplicatedPostgres.url(standby, DATABASE),
                "rowqueue-stale", 4)) {
            CountingDataSource counting = new CountingDataSource(pool);
            try (RowQueues rq = RowQueues.builder(counting).build()) {
                WorkQueue q = rq.workQueue("fo_jobs", WorkQueueOptions.defaults().leaseDuration(LEASE));
                RingQueue ring = rq.ring("fo_ring", 1_000_000);
                Counters counters = rq.counters("fo_counts");
                RowQueueException[] error = new RowQueueException[1];
                int enqueue = readOnlyAttempts("enqueue on the standby", counting, () -> q.enqueue("stale"), error);
                int push = readOnlyAttempts("ring push on the standby", counting, () -> ring.push("g", "stale"),
                        error);
                int increment = readOnlyAttempts("increment on the standby", counting,
                        () -> counters.increment("k"), error);
                long connects = counting.connections();
                counting.record();
                Worker w = q.worker(ctx -> anomalies.add("a worker on the standby ran job " + ctx.id()),
                        WorkerOptions.threads(2)).start();
                pause(window);
                w.close(Duration.ofSeconds(5));
                // the listener checks each connection it gives up with SELECT 1; the rest are the worker's claims
                long claims = counting.recorded().stream().filter(sql -> !sql.equals("SELECT 1")).count();
                long listens = counting.connections() - connects - claims;
                // a worker backs off 100 ms, 200 ms, ... after failed claims, the listener 50 ms doubling to 2 s:
                // about 6 of each in 2 s; a retry storm would be hundreds
                if (claims > MAX_STALE_ATTEMPTS || listens > MAX_STALE_ATTEMPTS) {
                    anomalies.add("a worker on the standby claimed " + claims + " times and its listener connected "
                            + listens + " times in " + window + " ms: a retry storm");
                }
                if (error[0] != null && !error[0].getMessage().contains("read-only")) {
                    anomalies.add("the standby's error does not say read-only: " + error[0].getMessage());
                }
                return new Stale(error[0] == null ? null : error[0].sqlState(), error[0] == null ? null
                        : error[0].getMessage(), enqueue, push, increment, claims, listens, window);
            }
        }
    }

    private int readOnlyAttempts(String what, CountingDataSource counting, Runnable write,
                                 RowQueueException[] error) {
        long before = counting.executions();
        try {
            write.run();
            anomalies.add(what + " succeeded");
        } catch (TransientRowQueueException | UnknownCommitOutcomeException e) {
            anomalies.add(what + ": " + e.getClass().getSimpleName() + " instead of a read-only error: " + e);
            error[0] = e;
        } catch (RowQueueException e) {
            if (!"25006".equals(e.sqlState())) {
                anomalies.add(what + ": SQLState " + e.sqlState() + " instead of 25006: " + e);
            }
            error[0] = e;
        }
        return (int) (counting.executions() - before);
    }

    // ---------------------------------------------------------------- the load

    @FunctionalInterface
    private interface Step {
        void run(long i);
    }

    private Thread loop(String name, Step step) {
        return new Thread(() -> {
            for (long i = 0; !stop.get(); i++) {
                step.run(i);
            }
        }, name);
    }

    private Outcome attempt(String role, Runnable op) {
        long start = System.nanoTime();
        Outcome outcome;
        try {
            op.run();
            outcome = Outcome.OK;
        } catch (UnknownCommitOutcomeException e) {
            outcome = Outcome.UNKNOWN;
        } catch (TransientRowQueueException e) {
            outcome = Outcome.TRANSIENT;
        } catch (RowQueueException e) {
            outcome = Outcome.OTHER;
            otherErrors.add(role + ": " + e);
        } catch (RuntimeException e) {
            outcome = Outcome.OTHER;
            anomalies.add("api: " + role + " threw " + e + " (not a RowQueueException)");
        }
        ops.add(new Op(role, start, System.nanoTime(), outcome));
        return outcome;
    }

    private void record(Run run) {
        runs.computeIfAbsent(run.payload(), k -> Collections.synchronizedList(new ArrayList<>())).add(run);
    }

    private void drain(WorkQueue jobs, Worker worker) throws InterruptedException {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (jobs.stats().total() == 0) {
                    break;
                }
            } catch (TransientRowQueueException e) {
                // once more
            }
            pause(100);
        }
        if (!worker.close(Duration.ofSeconds(10))) {
            anomalies.add("the worker's handlers did not finish");
        }
    }

    // ---------------------------------------------------------------- the checks

    private List<String> check(WorkQueue jobs, RingQueue ring, Counters counters) {
        List<String> found = new ArrayList<>(anomalies);
        if (pg.mode() == ReplicatedPostgres.Mode.ASYNCHRONOUS) {
            found.removeIf(a -> a.startsWith("ring: number") || a.startsWith("counter: value"));
        }
        boolean strict = pg.mode() == ReplicatedPostgres.Mode.SYNCHRONOUS;
        Map<String, Long> left = leftInQueue();
        long notDrained = left.size();
        if (notDrained > 0) {
            found.add("jobs: " + notDrained + " still in the queue after the drain: " + jobs.stats());
        }
        for (String payload : enqueueFailed) {
            if (runs.containsKey(payload) || left.containsKey(payload)) {
                found.add("jobs: " + payload + " ran although its enqueue failed transiently");
            }
        }
        for (String payload : runs.keySet()) {
            if (!payload.startsWith("e")) {
                continue;
            }
            if (!enqueued.containsKey(payload) && !enqueueUnknown.contains(payload)) {
                found.add("jobs: " + payload + " ran but was never enqueued");
            }
        }
        for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
            List<Run> list = new ArrayList<>(e.getValue());
            Set<Long> ids = list.stream().map(Run::id).collect(Collectors.toSet());
            if (ids.size() > 1) {
                found.add("jobs: " + e.getKey() + " was enqueued more than once: jobs " + ids);
            }
            list.sort((a, b) -> a.start().compareTo(b.start()));
            for (int i = 1; i < list.size(); i++) {
                Run before = list.get(i - 1);
                Run after = list.get(i);
                if (strict && before.ackedAt() != null && after.start().isAfter(before.ackedAt())) {
                    found.add("jobs: " + e.getKey() + " ran again after an ack reported true: " + before + " then "
                            + after);
                }
                if (strict && after.start().isBefore(before.end()) && !before.leaseLost()
                        && after.start().isBefore(before.leaseUntil())) {
                    found.add("jobs: " + e.getKey() + " ran twice at once while the first lease lived: " + before
                            + " and " + after);
                }
            }
        }
        if (strict) {
            for (String payload : enqueued.keySet()) {
                if (!runs.containsKey(payload) && !left.containsKey(payload)) {
                    found.add("jobs: " + payload + " was reported enqueued and is lost");
                }
            }
        }
        Map<Long, String> entries = new HashMap<>();
        Set<String> payloads = new HashSet<>();

        for (RingEntry e : ring.oldestFirst("g")) {
            entries.put(e.seq(), e.payload());
            if (!payloads.add(e.payload())) {
                found.add("ring: " + e.payload() + " is there twice (a push applied twice)");
            }
            if (pushFailed.contains(e.payload())) {
                found.add("ring: " + e.payload() + " is there although its push failed transiently");
            }
            if (!pushed.containsKey(e.payload()) && !pushUnknown.contains(e.payload())
                    && !e.payload().equals("stale")) {
                found.add("ring: " + e.payload() + " is there but was never pushed");
            }
            if (e.payload().equals("stale")) {
                found.add("ring: the push to the standby applied");
            }
        }
        if (strict) {
            for (Map.Entry<String, Long> p : pushed.entrySet()) {
                if (!p.getKey().equals(entries.get(p.getValue()))) {
                    found.add("ring: push " + p.getValue() + " (" + p.getKey() + ") was reported and is "
                            + (entries.containsKey(p.getValue()) ? "replaced by " + entries.get(p.getValue())
                            : "lost"));
                }
            }
            long value = counters.get("k");
            if (value < increments.get() || value > increments.get() + incrementUnknown.get()) {
                found.add("counter: " + value + ", reported " + increments.get() + " plus at most "
                        + incrementUnknown.get() + " of unknown outcome");
            }
        }
        return found;
    }

    /** Acknowledged writes that the last primary does not have. */
    private Lost lost(RingQueue ring, Counters counters) {
        Map<String, Long> left = leftInQueue();
        long enqueues = enqueued.keySet().stream().filter(p -> !runs.containsKey(p) && !left.containsKey(p)).count();
        Map<Long, String> entries = ring.oldestFirst("g").stream().collect(Collectors.toMap(RingEntry::seq,
                RingEntry::payload));
        long pushes = pushed.entrySet().stream().filter(p -> !p.getKey().equals(entries.get(p.getValue()))).count();
        // a lost increment's value is handed out again by a later one; a shortfall covers those lost at the end
        long reissued = incrementValues.values().stream().mapToLong(n -> n - 1).sum();
        long incrementsLost = Math.max(reissued, increments.get() - counters.get("k"));
        long acks = 0;
        long leases = 0;
        for (List<Run> list : runs.values()) {
            List<Run> sorted = new ArrayList<>(list);
            sorted.sort((a, b) -> a.start().compareTo(b.start()));
            for (int i = 1; i < sorted.size(); i++) {
                Run before = sorted.get(i - 1);
                Run after = sorted.get(i);
                if (before.ackedAt() != null && after.start().isAfter(before.ackedAt())) {
                    acks++;
                } else if (after.start().isBefore(before.end()) && !before.leaseLost()
                        && after.start().isBefore(before.leaseUntil())) {
                    leases++;
                }
            }
        }
        return new Lost(enqueues, pushes, incrementsLost, acks, leases);
    }

    private Map<String, Long> leftInQueue() {
        Map<String, Long> left = new HashMap<>();
        try (Connection c = ReplicatedPostgres.connect(pg.primary(), DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT payload, id FROM fo_jobs")) {
            while (rs.next()) {
                left.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return left;
    }

    // ---------------------------------------------------------------- helpers

    private static Map<String, Map<Outcome, Long>> byRole(List<Op> list) {
        Map<String, Map<Outcome, Long>> roles = new java.util.TreeMap<>();
        for (Op o : list) {
            roles.computeIfAbsent(o.role(), r -> new EnumMap<>(Outcome.class)).merge(o.outcome(), 1L, Long::sum);
        }
        return roles;
    }

    private static Map<Outcome, Long> count(List<Op> list) {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        for (Op o : list) {
            counts.merge(o.outcome(), 1L, Long::sum);
        }
        return counts;
    }

    private static long queryLong(ReplicatedPostgres.Node node, String sql) {
        try (Connection c = ReplicatedPostgres.connect(node, DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    private static boolean eventually(BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            pause(20);
        }
        return true;
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
