package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Counters;
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
import dev.rowqueue.tck.faults.Anomaly;
import dev.rowqueue.tck.faults.Anomaly.Kind;
import dev.rowqueue.tck.faults.History;
import dev.rowqueue.tck.faults.HistoryChecker;
import dev.rowqueue.tck.faults.Outcome;
import dev.rowqueue.tck.faults.Workload;
import dev.rowqueue.testkit.CountingDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Failover under the fault campaign's load and checker: tck's {@link Workload} runs on a {@link ReplicatedPostgres}
 * pair through one multi-host URL ({@code targetServerType=primary}) while the primary is killed with SIGKILL and
 * the standby promoted, several times, a new standby made after each promotion; then the {@link HistoryChecker}
 * checks the whole history against the last primary (docs/reliability.md lists what it proves). On top of that, what
 * only this scenario tests:
 * <ul>
 *   <li>per promotion: when {@code pg_promote()} came, and when each role (the {@link Workload#roles()}, acks and
 *       the worker's handlers) succeeded again with a call invoked once the old primary's last process was gone;</li>
 *   <li>before each kill, a pool on the standby alone: writes fail at once with SQLState 25006, and a worker there
 *       backs off instead of claiming in a loop;</li>
 *   <li>after each promotion, an idle worker that polls only every {@link #IDLE_POLL} must start a newly enqueued
 *       job long before that: its {@code LISTEN} must be back, on the new primary.</li>
 * </ul>
 * With a synchronous standby every anomaly is a failure. With an asynchronous one, the anomalies of
 * {@link Figures#LOSS_KINDS} are the measurement: the database acknowledged writes its standby never received.
 */
final class FailoverScenario {

    /** The idle worker's poll interval, listening or not: far longer than the wait for its job. */
    static final Duration IDLE_POLL = Duration.ofMinutes(5);
    /** How long the idle worker's job may take to start: a fraction of {@link #IDLE_POLL}. */
    static final Duration WAKE_PATIENCE = Duration.ofSeconds(60);
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** The most claims, or listener connections, a worker on the standby may make in two seconds. */
    private static final int MAX_STALE_ATTEMPTS = 10;
    private static final String DATABASE = "failover";
    /** The workload's queues, rings and counters are named {@code fo_...}. */
    private static final String PREFIX = "fo";
    /** The queue, ring and counters the pool on the standby writes to: the scenario's own, outside the history. */
    private static final String STALE_QUEUE = "fo_stale_jobs";
    private static final String STALE_RING = "fo_stale_ring";
    private static final String STALE_COUNTERS = "fo_stale_count";
    private static final int STALE_CAPACITY = 10;

    /** The standby checks of one round. */
    record Stale(String sqlState, String message, int enqueueAttempts, int pushAttempts, int incrementAttempts,
                 long workerClaims, long listenerConnects, long windowMillis) {
    }

    /**
     * One promotion.
     *
     * @param kill          when the old primary's postmaster got SIGKILL
     * @param promoteMillis from the kill to {@code pg_promote()} (the scenario's promotion delay, plus the kill)
     * @param resumeMillis  from the kill to the first success of the slowest role (a call invoked once the old
     *                      primary was gone)
     * @param resumeByRole  the same per role
     * @param inFlight      calls running at the kill, by outcome
     * @param window        calls that returned between the kill and the last role's resumption, by outcome
     * @param wakeMillis    from the idle worker's job's enqueue to its start
     */
    record Round(int number, String killed, Instant kill, String promoted, long promoteMillis, long resumeMillis,
                 Map<String, Long> resumeByRole, Map<Outcome, Long> inFlight, Map<Outcome, Long> window,
                 long wakeMillis, Stale stale) {
        long inFlightTotal() {
            return inFlight.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * What a run saw.
     *
     * @param calls        calls of every role
     * @param outcomes     calls by outcome
     * @param byRole       calls by role and outcome
     * @param acknowledged writes acknowledged OK, by type
     * @param runs         handlings of jobs by consumers and the worker
     * @param anomalies    what the {@link HistoryChecker} found, and jobs left after the drain
     * @param failures     what this scenario's own checks found (resumption, the standby's pool, the idle worker)
     */
    record Figures(ReplicatedPostgres.Mode mode, String version, long seconds, List<Round> rounds, long calls,
                   Map<Outcome, Long> outcomes, Map<String, Map<Outcome, Long>> byRole,
                   Map<History.Type, Long> acknowledged, long runs, List<Anomaly> anomalies, List<String> failures) {

        /**
         * The anomalies that losing the last transactions a primary acknowledged produces, and nothing else does on
         * this load: a promoted standby holds a prefix of the old primary's commits, each write intact.
         * <ul>
         *   <li>{@link Kind#LOST_JOB}: a lost enqueue;</li>
         *   <li>{@link Kind#LOST_PUSH}: a lost push (missing, or its number handed out again to a later push);</li>
         *   <li>{@link Kind#DUPLICATE_NUMBER}: that number, reported twice and against real time;</li>
         *   <li>{@link Kind#COUNTER}: a lost increment (the counter below the acknowledged ones, its value handed
         *       out again, against real time);</li>
         *   <li>{@link Kind#RUN_AFTER_ACK}: a lost ack (the finished job is handed out again); also a lost enqueue
         *       whose job id is reused, when the identity sequence's advance was lost with it;</li>
         *   <li>{@link Kind#DOUBLE_RUN} and {@link Kind#KEY_LIMIT_EXCEEDED}: a lost claim (its lease is gone, and
         *       another consumer takes the job, or another job of its key, while the first still runs it).</li>
         * </ul>
         * Not loss kinds, so failures in both modes: {@link Kind#RING_DISORDER} (a push's head row and slot are one
         * statement, so a promoted standby has both or neither and the ring stays consecutive, without strangers),
         * {@link Kind#SLOT_FIRED_TWICE} (a fire's slot row and job are one transaction, lost together),
         * {@link Kind#PHANTOM_JOB}, {@link Kind#DUPLICATE_JOB} and {@link Kind#RUN_BEFORE_ENQUEUE} (a loss removes
         * writes, it never adds or doubles one), {@link Kind#UNDOCUMENTED_ERROR} and {@link Kind#LIVENESS}.
         */
        static final Set<Kind> LOSS_KINDS = EnumSet.of(Kind.LOST_JOB, Kind.LOST_PUSH, Kind.DUPLICATE_NUMBER,
                Kind.COUNTER, Kind.RUN_AFTER_ACK, Kind.DOUBLE_RUN, Kind.KEY_LIMIT_EXCEEDED);

        /** @return with an asynchronous standby, the anomalies of {@link #LOSS_KINDS}: the measurement */
        List<Anomaly> losses() {
            return mode == ReplicatedPostgres.Mode.ASYNCHRONOUS
                    ? anomalies.stream().filter(a -> LOSS_KINDS.contains(a.kind())).toList() : List.of();
        }

        /** @return the anomalies that fail the run: all with a synchronous standby, all but losses otherwise */
        List<Anomaly> unexpected() {
            return mode == ReplicatedPostgres.Mode.ASYNCHRONOUS
                    ? anomalies.stream().filter(a -> !LOSS_KINDS.contains(a.kind())).toList() : anomalies;
        }

        /** @return acknowledged writes of a type */
        long acknowledged(History.Type type) {
            return acknowledged.getOrDefault(type, 0L);
        }

        /** @return the figures as a Markdown table and a few lines */
        String report() {
            StringBuilder b = new StringBuilder();
            b.append("PostgreSQL ").append(version).append(", ").append(mode.name().toLowerCase(Locale.ROOT))
                    .append(" standby, ").append(rounds.size()).append(" promotions in ").append(seconds)
                    .append(" s: ").append(calls).append(" calls ").append(outcomes).append("; acknowledged ")
                    .append(acknowledged(History.Type.ENQUEUE)).append(" enqueues, ")
                    .append(acknowledged(History.Type.PUSH)).append(" pushes, ")
                    .append(acknowledged(History.Type.INCREMENT)).append(" increments; ").append(runs)
                    .append(" job runs\n");
            b.append("| Promotion | pg_promote() after the kill (s) | All roles resumed after the kill (s) | After"
                    + " pg_promote() (s) | In flight at the kill | Outcomes until resumed | Idle worker's job started"
                    + " after (ms) | Pool on the standby: SQLState, attempts per write, worker claims / listener"
                    + " connections in ").append(rounds.isEmpty() ? 0 : rounds.get(0).stale().windowMillis() / 1000)
                    .append(" s |\n|---|---|---|---|---|---|---|---|\n");
            for (Round r : rounds) {
                b.append("| ").append(r.number()).append(" (").append(r.killed()).append(" killed at ")
                        .append(TIME_OF_DAY.format(r.kill())).append(", ")
                        .append(r.promoted()).append(" promoted) | ").append(seconds(r.promoteMillis())).append(" | ")
                        .append(seconds(r.resumeMillis())).append(" | ")
                        .append(seconds(r.resumeMillis() - r.promoteMillis())).append(" | ").append(r.inFlightTotal())
                        .append(" ").append(r.inFlight()).append(" | ").append(r.window()).append(" | ")
                        .append(r.wakeMillis()).append(" | ").append(r.stale().sqlState()).append(", ")
                        .append(r.stale().enqueueAttempts()).append("/").append(r.stale().pushAttempts()).append("/")
                        .append(r.stale().incrementAttempts()).append(", ").append(r.stale().workerClaims())
                        .append(" / ").append(r.stale().listenerConnects()).append(" |\n");
            }
            b.append("resumed per role (ms after the kill): ").append(rounds.stream().map(Round::resumeByRole)
                    .toList()).append("\n");
            b.append("outcomes by role: ").append(byRole).append("\n");
            b.append("anomalies by kind: ").append(HistoryChecker.count(anomalies));
            if (mode == ReplicatedPostgres.Mode.ASYNCHRONOUS) {
                b.append(" (measured, of the loss kinds: ").append(losses().size()).append("; unexpected: ")
                        .append(unexpected().size()).append(")");
            }
            b.append("\n");
            if (!anomalies.isEmpty()) {
                b.append("anomalies (samples): ").append(samples(unexpected())).append(samples(losses()))
                        .append("\n");
            }
            b.append("scenario failures: ").append(failures.size()).append(failures.isEmpty() ? "" : " " + failures)
                    .append("\n");
            return b.toString();
        }

        private static final DateTimeFormatter TIME_OF_DAY = DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
                .withZone(ZoneOffset.UTC);

        private static String samples(List<Anomaly> list) {
            return list.isEmpty() ? "" : list.stream().limit(20).toList().toString();
        }

        private static String seconds(long millis) {
            return String.format(Locale.ROOT, "%.2f", millis / 1000.0);
        }
    }

    private final ReplicatedPostgres pg;
    private final int promotions;
    private final List<Duration> promotionDelays;
    private final Duration loadBefore;
    private final Duration loadAfter;

    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
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
     * Runs the load and the promotions, drains the queues and checks the history.
     *
     * @return the figures
     * @throws InterruptedException if interrupted
     */
    Figures run() throws InterruptedException {
        long started = System.nanoTime();
        String url = pg.url(DATABASE);
        List<Round> rounds = new ArrayList<>();
        try (HikariDataSource pool = ReplicatedPostgres.pool(url, "rowqueue-load", 24);
             HikariDataSource idlePool = ReplicatedPostgres.pool(url, "rowqueue-idle", 3);
             Workload load = new Workload(() -> RowQueues.builder(pool), PREFIX, Workload.Settings.defaults())) {
            prepareStale(pool);
            CountingDataSource idleCounting = new CountingDataSource(idlePool);
            try (RowQueues idleRq = RowQueues.builder(idleCounting).pollInterval(IDLE_POLL)
                    .dialectOption(PostgresDialect.OPTION_WAKEUP_POLL_MILLIS, String.valueOf(IDLE_POLL.toMillis()))
                    .build()) {
                WorkQueue idleQueue = idleRq.workQueue("fo_idle");
                idleQueue.stats();
                Worker idleWorker = idleQueue.worker(ctx -> idleStarts.put(ctx.payload(), System.nanoTime()),
                        WorkerOptions.defaults().withThreads(1).withListener(new WorkerListener() {
                            @Override
                            public void idle() {
                                idleCallbacks.incrementAndGet();
                            }
                        }));
                load.start();
                idleWorker.start();
                List<String> roles = new ArrayList<>(load.roles());
                roles.addAll(List.of("ack", "worker"));
                TimeUnit.NANOSECONDS.sleep(loadBefore.toNanos());
                for (int r = 1; r <= promotions; r++) {
                    rounds.add(promotion(r, load.history(), roles, idleCounting, idleQueue));
                    if (r < promotions) {
                        TimeUnit.NANOSECONDS.sleep(loadAfter.toNanos());
                        pg.rebuildStandby();
                        TimeUnit.NANOSECONDS.sleep(loadBefore.toNanos());
                    }
                }
                TimeUnit.NANOSECONDS.sleep(loadAfter.toNanos());
                load.stopProducing();
                List<Anomaly> anomalies = load.drainAndCheck(PATIENCE);
                idleWorker.close(Duration.ofSeconds(5));
                History h = load.history();
                return new Figures(pg.mode(), pg.version(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime()
                        - started), rounds, h.calls().size(), h.outcomes(), h.outcomesByRole(),
                        h.writes().stream().filter(w -> w.outcome() == Outcome.OK).collect(Collectors.groupingBy(
                                History.Write::type, () -> new EnumMap<>(History.Type.class), Collectors.counting())),
                        h.runs().size(), anomalies, List.copyOf(failures));
            }
        }
    }

    // ---------------------------------------------------------------- one promotion

    private Round promotion(int number, History history, List<String> roles, CountingDataSource idleCounting,
                            WorkQueue idleQueue) throws InterruptedException {
        Stale stale = staleStandby(pg.standby());
        long idleBefore = idleCallbacks.get();
        ReplicatedPostgres.Node killed = pg.killPrimary();
        Instant kill = instant(killed.killedAt);
        Instant gone = instant(killed.goneAt);
        Duration delay = promotionDelays.get((number - 1) % promotionDelays.size());
        TimeUnit.NANOSECONDS.sleep(killed.killedAt + delay.toNanos() - System.nanoTime());
        ReplicatedPostgres.Node promoted = pg.promoteStandby();

        // a success invoked once the old primary was gone: the new primary served it (until its last process died,
        // the old one may still commit what its walsender could send)
        Map<String, Instant> first = history.awaitSuccesses(roles, gone, PATIENCE);
        Map<String, Long> resume = new LinkedHashMap<>();
        for (String role : roles) {
            Instant at = first.get(role);
            if (at == null) {
                failures.add("promotion " + number + ": " + role + " did not resume within " + PATIENCE.toSeconds()
                        + " s");
            } else {
                resume.put(role, Duration.between(kill, at).toMillis());
            }
        }
        long resumed = resume.values().stream().mapToLong(Long::longValue).max().orElse(PATIENCE.toMillis());
        Instant resumedAt = kill.plusMillis(resumed);
        List<History.Call> calls = history.calls();
        Map<Outcome, Long> inFlight = count(calls, c -> c.invoked().isBefore(kill) && c.returned().isAfter(kill));
        Map<Outcome, Long> window = count(calls, c -> c.returned().isAfter(kill) && !c.returned().isAfter(resumedAt));

        long wake = idleWakeup(number, idleBefore, idleCounting, idleQueue, promoted);
        return new Round(number, killed.name, kill, promoted.name,
                TimeUnit.NANOSECONDS.toMillis(promoted.promotedAt - killed.killedAt), resumed, resume, inFlight,
                window, wake, stale);
    }

    /** @return a {@link System#nanoTime()} reading as a wall-clock instant, the History's clock */
    private static Instant instant(long nanoTime) {
        return Instant.now().minusNanos(System.nanoTime() - nanoTime);
    }

    private static Map<Outcome, Long> count(List<History.Call> calls, Predicate<History.Call> which) {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        calls.stream().filter(which).forEach(c -> counts.merge(c.outcome(), 1L, Long::sum));
        return counts;
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
            failures.add("promotion " + number + ": the idle worker's LISTEN connection never came back on "
                    + primary);
            return -1;
        }
        if (!eventually(() -> idleCallbacks.get() > idleBefore)) {
            failures.add("promotion " + number + ": the idle worker never claimed again on " + primary);
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
            failures.add("promotion " + number + ": could not enqueue the idle worker's job");
            return -1;
        }
        long limit = System.nanoTime() + WAKE_PATIENCE.toNanos();
        while (!idleStarts.containsKey(payload) && System.nanoTime() < limit) {
            pause(5);
        }
        Long start = idleStarts.get(payload);
        if (start == null) {
            failures.add("promotion " + number + ": the idle worker did not start a job enqueued on the new primary"
                    + " within " + WAKE_PATIENCE.toSeconds() + " s (it polls every " + IDLE_POLL.toMinutes()
                    + " min): no wake-up");
            return -1;
        }
        return TimeUnit.NANOSECONDS.toMillis(start - enqueuedAtNanos);
    }

    /**
     * Makes the standby pool's queue (with jobs in it, which a worker on the standby must never run), ring and
     * counters on the primary, so the standby has them and its refusals are the writes', not the tables'.
     */
    private static void prepareStale(HikariDataSource pool) {
        try (RowQueues rq = RowQueues.builder(pool).build()) {
            WorkQueue q = rq.workQueue(STALE_QUEUE);
            for (int i = 0; i < 3; i++) {
                q.enqueue("stale-" + i);
            }
            rq.ring(STALE_RING, STALE_CAPACITY).size("g");
            rq.counters(STALE_COUNTERS).get("k");
        }
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
                WorkQueue q = rq.workQueue(STALE_QUEUE);
                RingQueue ring = rq.ring(STALE_RING, STALE_CAPACITY);
                Counters counters = rq.counters(STALE_COUNTERS);
                RowQueueException[] error = new RowQueueException[1];
                int enqueue = readOnlyAttempts("enqueue on the standby", counting, () -> q.enqueue("stale"), error);
                int push = readOnlyAttempts("ring push on the standby", counting, () -> ring.push("g", "stale"),
                        error);
                int increment = readOnlyAttempts("increment on the standby", counting,
                        () -> counters.increment("k"), error);
                long connects = counting.connections();
                counting.record();
                Worker w = q.worker(ctx -> failures.add("a worker on the standby ran job " + ctx.id()),
                        WorkerOptions.defaults().withThreads(2)).start();
                pause(window);
                w.close(Duration.ofSeconds(5));
                // the listener checks each connection it gives up with SELECT 1; the rest are the worker's claims
                long claims = counting.recorded().stream().filter(sql -> !sql.equals("SELECT 1")).count();
                long listens = counting.connections() - connects - claims;
                // a worker backs off 100 ms, 200 ms, ... after failed claims, the listener 50 ms doubling to 2 s:
                // about 6 of each in 2 s; a retry storm would be hundreds
                if (claims > MAX_STALE_ATTEMPTS || listens > MAX_STALE_ATTEMPTS) {
                    failures.add("a worker on the standby claimed " + claims + " times and its listener connected "
                            + listens + " times in " + window + " ms: a retry storm");
                }
                if (error[0] != null && !error[0].getMessage().contains("read-only")) {
                    failures.add("the standby's error does not say read-only: " + error[0].getMessage());
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
            failures.add(what + " succeeded");
        } catch (TransientRowQueueException | UnknownCommitOutcomeException e) {
            failures.add(what + ": " + e.getClass().getSimpleName() + " instead of a read-only error: " + e);
            error[0] = e;
        } catch (RowQueueException e) {
            if (!"25006".equals(e.sqlState())) {
                failures.add(what + ": SQLState " + e.sqlState() + " instead of 25006: " + e);
            }
            error[0] = e;
        }
        return (int) (counting.executions() - before);
    }

    // ---------------------------------------------------------------- helpers

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
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            pause(20);
        }
        return true;
    }

    private static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
