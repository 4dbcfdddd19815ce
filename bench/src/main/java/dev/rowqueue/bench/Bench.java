package dev.rowqueue.bench;

import dev.rowqueue.Capability;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueueOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Runs the benchmarks and writes one table: rowqueue against its baselines and its peers on the same database, in
 * one run, every workload at each thread count of the profile. This class holds the main table's cells;
 * {@link Options} parses the command line, {@link PeerCells} runs rowqueue and its peers side by side,
 * {@link RateLimitCell} measures how accurately a rate limit holds across nodes,
 * {@link StatementCounts} counts statements and round trips, {@link Results} records and {@link Report} renders.
 *
 * <pre>
 * Bench [--profile smoke|quick|full] [--targets h2,postgres,mariadb,sqlite|all] [--only REGEX] [--out DIR]
 *       [--durable true|false] [--threads 1,4,16] [--claim-concurrency N|unlimited] [--node PATH]
 *       [--hold-horizon true|false]
 * </pre>
 */
public final class Bench {

    private final Options options;
    private final Profile profile;
    private final Results results;
    private final PeerCells peers;
    private final RateLimitCell rateLimit;
    private final StatementCounts counts;

    private Bench(Options options) {
        this.options = options;
        this.profile = options.profile();
        this.results = new Results(options.only());
        this.peers = new PeerCells(results, options);
        this.rateLimit = new RateLimitCell(results, options);
        this.counts = new StatementCounts(results);
    }

    /**
     * @param args see the class comment
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        run(args);
    }

    /**
     * Runs the benchmarks.
     *
     * @param args see the class comment
     * @return the results file written
     * @throws Exception on failure
     */
    static Path run(String[] args) throws Exception {
        Options options = Options.parse(args);
        Bench bench = new Bench(options);
        String loadAtStart = Machine.loadAverage();
        long t0 = System.nanoTime();
        for (String name : options.targets()) {
            try (BenchTarget target = Targets.create(name, options.durable())) {
                bench.runAll(target);
            }
        }
        Path written = new Report(bench.results, options.profile(), options.claimConcurrency(), loadAtStart)
                .write(options.out(), Duration.ofNanos(System.nanoTime() - t0));
        System.out.println("wrote " + written.toAbsolutePath());
        return written;
    }

    private boolean want(String workload) {
        return results.want(workload);
    }

    private double cell(BenchTarget target, String workload, int threads, Results.Measure measure) throws Exception {
        return results.cell(target, workload, threads, measure);
    }

    private double cell(BenchTarget target, String workload, int threads, List<Results.Ratio> vs, String note,
                        Results.Measure measure) throws Exception {
        return results.cell(target, workload, threads, vs, note, measure);
    }

    private int order(String workload) {
        return results.order(workload);
    }

    /**
     * @param profile the profile
     * @return the profile for enqueue-to-start latency: rounds of at least 4 s, for enough samples of a trickle
     *         (quick: 3 x 4 s, 240 jobs); the smoke profile as it is
     */
    static Profile slow(Profile profile) {
        return profile.name().equals("smoke") ? profile : profile.withIteration(
                profile.iteration().compareTo(Duration.ofSeconds(4)) < 0 ? Duration.ofSeconds(4) : profile.iteration());
    }

    private void runAll(BenchTarget target) throws Exception {
        System.out.println("== " + target.name() + " (profile " + profile.name() + ")");
        results.databases.add(target.name() + ": " + target.settings());
        RowQueues.Builder builder = RowQueues.builder(target.dataSource());
        if (options.claimConcurrency() != null) {
            builder.claimConcurrency(options.claimConcurrency());
        }
        try (RowQueues plain = builder.build()) {
            boolean postgres = plain.database().dialect().equals("postgresql");
            counts.roundTrips(target, plain);
            Workloads w = new Workloads(target, plain);
            results.retries = w::retries;
            peers.run(target, plain, w);
            rateLimit.run(target, plain, w);
            boolean singleWriter = plain.database().capabilities().contains(Capability.SINGLE_WRITER_RING);
            Optional<Peer> peer = target.peer();
            warmUp(w);
            for (int threads : profile.threads()) {
                double insert = cell(target, "baseline: bare INSERT of one row, own transaction", threads,
                        () -> Harness.measure(profile, threads, w.bareInsert()));
                double update = cell(target, "baseline: bare UPDATE of 1 of 1000 rows, own transaction", threads,
                        () -> Harness.measure(profile, threads, w.bareUpdate(1000)));
                double hot = cell(target, "baseline: bare UPDATE of 1 hot row, own transaction", threads,
                        () -> Harness.measure(profile, threads, w.bareUpdate(1)));
                List<Results.Ratio> vsInsert = List.of(new Results.Ratio("bare INSERT", insert));
                List<Results.Ratio> vsUpdate = List.of(new Results.Ratio("bare UPDATE", update));
                List<Results.Ratio> vsHot = List.of(new Results.Ratio("bare UPDATE of the hot row", hot));
                for (int groups : new int[] {1, 1000}) {
                    for (int capacity : new int[] {10, 10_000}) {
                        String shape = groups + (groups == 1 ? " group" : " groups") + ", capacity " + capacity;
                        cell(target, "ring push, rowqueue (safe), " + shape, threads, vsInsert, "",
                                () -> Harness.measure(profile, threads,
                                        w.ringPush(groups, capacity, RingStrategy.SAFE, threads)));
                        if (singleWriter && (groups >= threads * 10 || threads == 1)) {
                            cell(target, "ring push, single-writer statement (1 writer per group), " + shape, threads,
                                    vsInsert, "", () -> Harness.measure(profile, threads,
                                            w.ringPush(groups, capacity, RingStrategy.SINGLE_WRITER, threads)));
                        }
                        cell(target, "ring push, naive insert+count+delete, " + shape, threads, vsInsert, "",
                                () -> Harness.measure(profile, threads, w.naiveRing(groups, capacity, threads)));
                    }
                }
                List<Results.Ratio> vsEnqueue = new ArrayList<>(vsInsert);
                if (peer.isPresent()) {
                    double schedule = cell(target, "enqueue, db-scheduler schedule()", threads, vsInsert, "",
                            () -> Harness.measure(profile, threads, peer.get().enqueue()));
                    vsEnqueue.add(new Results.Ratio("db-scheduler", schedule));
                }
                cell(target, "enqueue, rowqueue", threads, vsEnqueue, "",
                        () -> Harness.measure(profile, threads, w.enqueue()));
                if (postgres) {
                    cell(target, "enqueue, rowqueue, notify=false", threads, vsEnqueue, "no NOTIFY: no wake-up of blocking claims",
                            () -> {
                                try (RowQueues quiet = RowQueues.builder(target.dataSource())
                                        .dialectOption("notify", "false").build()) {
                                    return Harness.measure(profile, threads, new Workloads(target, quiet).enqueue());
                                }
                            });
                }
                List<Results.Ratio> vsClaim = new ArrayList<>(vsUpdate);
                if (peer.isPresent()) {
                    double executions = cell(target, "claim+ack, db-scheduler executions (no-op task)", threads,
                            List.of(), peer.get().polling() + ", " + threads + " executor threads", () -> {
                                try (Peer.Executions e = peer.get().new Executions(threads)) {
                                    return Harness.observe(profile, e);
                                }
                            });
                    vsClaim.add(new Results.Ratio("db-scheduler", executions));
                }
                for (int batch : new int[] {1, 10}) {
                    String name = "claim+ack, rowqueue, batch " + batch;
                    order(name);
                    order(bigBacklog(batch));
                    cell(target, name, threads, vsClaim, "backlog topped up to 2 rounds of work", () -> {
                        Workloads.Backlog backlog = w.backlog(5_000);
                        return Harness.measure(profile, threads, backlog.claimAck(batch), backlog);
                    });
                }
                for (int batch : new int[] {1, 10}) {
                    cell(target, workerLoop(batch), threads, vsClaim, "ackAndClaim: the acks of the last batch and the"
                            + " next claim in one call; backlog topped up to 2 rounds of work", () -> {
                                Workloads.Backlog backlog = w.backlog(5_000);
                                return Harness.measure(profile, threads, backlog.workerLoop(batch, threads), backlog);
                            });
                }
                for (int batch : new int[] {1, 10}) {
                    Double plainLoop = results.rate(target.name(), workerLoop(batch), threads);
                    List<Results.Ratio> vsPlain = plainLoop == null ? List.of()
                            : List.of(new Results.Ratio("plain worker loop", plainLoop));
                    for (KeyedMode mode : KeyedMode.values()) {
                        cell(target, keyedRow(batch, mode), threads, vsPlain, "the worker loop above on jobs spread"
                                + " round-robin over " + KEYS + " keys, the table analyzed after the first fill;"
                                + " backlog topped up to 2 rounds of work", () -> {
                                    Workloads.Backlog backlog = w.keyedBacklog(5_000, mode.options, KEYS);
                                    return Harness.measure(profile, threads, backlog.workerLoop(batch, threads),
                                            backlog);
                                });
                    }
                }
                cell(target, "enqueue-to-claim latency, blocking claim(1, 250 ms), 200 jobs/s", threads, List.of(),
                        wakeupNote(plain), () -> {
                            try (Workloads.EnqueueToClaim e = w.new EnqueueToClaim(200)) {
                                return Harness.measure(profile, threads, e.consume(), e);
                            }
                        });
                workerCells(target, plain, w, peer, threads);
                cell(target, "counter increment, rowqueue, 1 hot key", threads, vsHot, "",
                        () -> Harness.measure(profile, threads, w.increment(1)));
                cell(target, "counter increment, rowqueue, 1000 keys", threads, vsUpdate, "",
                        () -> Harness.measure(profile, threads, w.increment(1000)));
            }
            if (want(bigBacklog(1)) || want(bigBacklog(10))) {
                long live = profile.backlogJobs();
                long dead = live / 10;
                System.out.printf(Locale.ROOT, "   filling %,d jobs and %,d dead letters ...%n", live, dead);
                long f0 = System.nanoTime();
                Workloads.Backlog backlog = w.backlog(live);
                backlog.fillWithDead(live, dead);
                String maintenance = target.maintenance(backlog.queue.name());
                if (maintenance != null) {
                    Targets.sql(target.dataSource(), maintenance);
                }
                System.out.printf(Locale.ROOT, "   filled in %.1f s%s%n", (System.nanoTime() - f0) / 1e9,
                        maintenance == null ? "" : ", then " + maintenance);
                for (int threads : profile.threads()) {
                    for (int batch : new int[] {1, 10}) {
                        String small = "claim+ack, rowqueue, batch " + batch;
                        Double smallRate = results.rate(target.name(), small, threads);
                        cell(target, bigBacklog(batch), threads,
                                smallRate == null ? List.of() : List.of(new Results.Ratio("small backlog", smallRate)),
                                maintenance == null ? "" : maintenance.replaceAll(" \\w+$", "") + " before the cell",
                                () -> {
                                    // each small-backlog cell starts on a fresh queue; this one starts where the
                                    // previous cells left it, so it gets the maintenance a database would have run
                                    if (maintenance != null) {
                                        Targets.sql(target.dataSource(), maintenance);
                                    }
                                    return Harness.measure(profile, threads, backlog.claimAck(batch), backlog);
                                });
                    }
                }
            }
        }
    }

    /** Mean rate of the trickle of the enqueue-to-start rows. */
    static final int TRICKLE_PER_SECOND = 20;

    /** @return the name of a worker throughput row */
    static String workerRow(boolean dbScheduler, Workers.Handler handler, boolean prefetch) {
        return "workers: " + (dbScheduler ? "db-scheduler" : "rowqueue Worker") + ", " + handler.label
                + (prefetch ? ", prefetch = threads" : "");
    }

    /** @return the name of an enqueue-to-start row */
    static String workerLatencyRow(boolean dbScheduler) {
        return "workers: enqueue-to-start latency, " + (dbScheduler ? "db-scheduler" : "rowqueue Worker")
                + ", trickle of " + TRICKLE_PER_SECOND + " jobs/s onto an idle worker";
    }

    /** @return the name of a heartbeat row */
    static String workerHeartbeatRow(boolean dbScheduler) {
        return "workers: heartbeat statements per second, " + (dbScheduler ? "db-scheduler" : "rowqueue Worker")
                + ", every handler running";
    }

    /** The heartbeat interval of the heartbeat rows; handlers run 6 of them. */
    private Duration beat() {
        return profile.name().equals("smoke") ? Duration.ofMillis(100) : Duration.ofMillis(500);
    }

    /**
     * The worker rows at one thread count: rowqueue's {@code Worker} and db-scheduler side by side, each with a no-op
     * and a 1 ms handler, watched over a backlog; enqueue-to-start latency of a trickle; heartbeat statements.
     */
    private void workerCells(BenchTarget target, RowQueues rq, Workloads w, Optional<Peer> peer, int threads)
            throws Exception {
        Workers workers = new Workers(rq, w, target);
        long floor = Math.min(20_000, profile.backlogJobs());
        for (Workers.Handler handler : Workers.Handler.values()) {
            List<Results.Ratio> vs = List.of();
            if (peer.isPresent()) {
                double executions = cell(target, workerRow(true, handler, false), threads, List.of(),
                        peer.get().polling() + ", " + threads + " executor threads; " + analyzedNote(target), () -> {
                            try (Peer.Executions e = peer.get().new Executions(threads, handler, floor)
                                    .analyzedOn(target)) {
                                return Harness.observe(profile, e);
                            }
                        });
                vs = List.of(new Results.Ratio("db-scheduler", executions));
            }
            for (boolean prefetch : new boolean[] {false, true}) {
                int ahead = prefetch ? threads : -1;
                cell(target, workerRow(false, handler, prefetch), threads, vs, "WorkerOptions.defaults().withThreads(" + threads
                        + ")" + (prefetch ? ".withPrefetch(" + ahead + "), fixed" : " (the defaults: up to 4 per thread ahead,"
                        + " within 100 ms)") + "; "
                        + analyzedNote(target), () -> {
                            try (Workers.Throughput t = workers.new Throughput(threads, ahead, handler, floor)) {
                                return Harness.observe(profile, t);
                            }
                        });
            }
        }
        Profile slow = slow(profile);
        String rqNote = (rq.database().capabilities().contains(Capability.WAKEUP)
                ? "woken by the database (LISTEN/NOTIFY)" : "polling: 50 ms, doubling to the poll interval of 200 ms,"
                + " jittered, and woken by the enqueues of its own instance, which enqueues here")
                + "; rate = jobs handled per second";
        if (peer.isPresent()) {
            cell(target, workerLatencyRow(true), threads, List.of(), "polling every "
                    + Peer.POLLING_INTERVAL.toMillis() + " ms (pollingInterval), " + peer.get().polling()
                    + "; rate = jobs handled per second", () -> {
                        try (Peer.Latency l = peer.get().new Latency(threads, TRICKLE_PER_SECOND)) {
                            return Harness.observe(slow, l);
                        }
                    });
        }
        cell(target, workerLatencyRow(false), threads, List.of(), rqNote, () -> {
            try (Workers.Latency l = workers.new Latency(threads, TRICKLE_PER_SECOND, true)) {
                return Harness.observe(slow, l);
            }
        });
        Duration beat = beat();
        Duration sleep = beat.multipliedBy(6);
        if (peer.isPresent()) {
            heartbeatCell(target, workerHeartbeatRow(true), threads, "heartbeatInterval " + beat.toMillis()
                    + " ms", () -> peer.get().heartbeats(threads, beat, sleep), sleep);
        }
        heartbeatCell(target, workerHeartbeatRow(false), threads, "lease " + beat.multipliedBy(3).toMillis()
                + " ms, so a heartbeat every " + beat.toMillis() + " ms (a third of the lease)",
                () -> workers.heartbeats(target.dataSource(), threads, beat, sleep), sleep);
    }

    private static String analyzedNote(BenchTarget target) {
        String m = target.maintenance("t");
        return m == null ? "table not analyzed" : m.replaceAll(" \\w+$", "") + " after the first fill";
    }

    @FunctionalInterface
    private interface Beats {
        Workers.Heartbeats run() throws Exception;
    }

    /** A heartbeat row: the rate is heartbeat statements a second, the notes say how many jobs each covered. */
    private void heartbeatCell(BenchTarget target, String workload, int threads, String setting, Beats beats,
                               Duration sleep) throws Exception {
        Workers.Heartbeats[] got = new Workers.Heartbeats[1];
        cell(target, workload, threads, List.of(), "", () -> {
            got[0] = beats.run();
            double rate = got[0].perSecond();
            return new Harness.Measurement(rate, rate, rate, 0, 0, got[0].statements(), 0, false);
        });
        Workers.Heartbeats h = got[0];
        if (h != null) {
            results.renoteLast(String.format(
                    Locale.ROOT, "%s; %d handlers sleeping %d ms: %d heartbeat statements in %.2f s, %.1f jobs per"
                            + " statement; %d statements in all", setting, threads, sleep.toMillis(), h.statements(),
                    h.seconds(), h.jobsPerStatement(), h.all()));
            System.out.println("      " + results.rows.get(results.rows.size() - 1).note());
        }
    }

    /**
     * Before a target's first cell: a few seconds of its main operations, untimed, so that the first rows do not
     * measure the JIT compiling the driver's code or the server's first touch of its buffers.
     */
    private void warmUp(Workloads w) throws Exception {
        long nanos = profile.warmup().toNanos() * 2;
        Harness.warm(4, nanos, w.bareInsert());
        Harness.warm(4, nanos, w.bareUpdate(1000));
        Harness.warm(4, nanos, w.ringPush(1000, 10, RingStrategy.SAFE, 4));
        Harness.warm(4, nanos, w.enqueue());
        Workloads.Backlog backlog = w.backlog(20_000);
        backlog.beforeRound(false, 0, nanos);
        Harness.warm(4, nanos, backlog.claimAck(10));
        Harness.warm(4, nanos, w.increment(1000));
    }

    private String bigBacklog(int batch) {
        return String.format(Locale.ROOT, "claim+ack, rowqueue, batch %d, backlog %,d live + %,d dead", batch,
                profile.backlogJobs(), profile.backlogJobs() / 10);
    }

    private static String wakeupNote(RowQueues rq) {
        return rq.database().capabilities().contains(Capability.WAKEUP) ? "woken by the database (LISTEN/NOTIFY)"
                : "polling, 10 ms doubling to 200 ms";
    }

    // ------------------------------------------------------------------ the table

    /** @return the name of the worker-loop claim+ack workload */
    static String workerLoop(int batch) {
        return "claim+ack, rowqueue, worker loop, batch " + batch;
    }

    /** Keys of the keyed claim rows. */
    static final int KEYS = 1000;

    /** The options of the keyed claim rows. */
    enum KeyedMode {
        /** A per-key limit of 1 (per-key FIFO). */
        LIMIT_1("maxLeasedPerKey(1)", WorkQueueOptions.defaults().withMaxLeasedPerKey(1)),
        /** Fair claims. */
        FAIR("fairClaims", WorkQueueOptions.defaults().withFairClaims(true)),
        /** Both. */
        LIMIT_1_FAIR("maxLeasedPerKey(1) + fairClaims", WorkQueueOptions.defaults().withMaxLeasedPerKey(1)
                .withFairClaims(true));

        final String label;
        final WorkQueueOptions options;

        KeyedMode(String label, WorkQueueOptions options) {
            this.label = label;
            this.options = options;
        }
    }

    /** @return the name of a keyed claim row */
    static String keyedRow(int batch, KeyedMode mode) {
        return workerLoop(batch) + ", " + mode.label + ", " + String.format(Locale.ROOT, "%,d", KEYS) + " keys";
    }
}
