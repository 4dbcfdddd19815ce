package dev.rowqueue.bench;

import dev.rowqueue.Capability;
import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.tck.CountingDataSource;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Runs the benchmarks and writes one table: rowqueue against its baselines and its peer on the same database, in
 * one run, every workload at each thread count of the profile.
 *
 * <pre>
 * Bench [--profile smoke|quick|full] [--targets h2,postgres,mariadb,sqlite|all] [--only REGEX] [--out DIR] [--durable true|false] [--threads 1,4,16] [--claim-concurrency N|unlimited]
 * </pre>
 */
public final class Bench {

    static final String USAGE = "usage: [--profile smoke|quick|full] [--targets " + Targets.KNOWN.replace(" ", "")
            + "|all] [--only REGEX] [--out DIR] [--durable true|false] [--threads 1,4,16]"
            + " [--claim-concurrency N|unlimited]";

    /** A comparison of a row with another rate. */
    record Ratio(String name, double rate) {
    }

    /** One row of the results. */
    record Row(String target, String workload, int threads, Harness.Measurement m, List<Ratio> vs, String note) {
    }

    /** Statements, commits, session calls and network round trips per operation, counted exactly. */
    record RoundTrips(String target, String operation, double statements, double commits, double sessionCalls,
                      double roundTrips, String note) {
    }

    /** The numbers the issue sets targets for, checked after the run. */
    record Target(String target, String check, String measured, boolean met) {
    }

    private final Profile profile;
    private final Predicate<String> only;
    private final List<Row> rows = new ArrayList<>();
    private final List<RoundTrips> trips = new ArrayList<>();
    private final List<String> databases = new ArrayList<>();
    private final Map<String, Integer> order = new LinkedHashMap<>();
    private final Map<String, Double> rates = new HashMap<>();
    private final String loadAtStart = Machine.loadAverage();
    /** rowqueue's {@code claimConcurrency}; {@code null}: its default. */
    private Integer claimConcurrency;
    /** The current target's workloads (for the baselines' retry count). */
    private Workloads workloads;

    private Bench(Profile profile, Predicate<String> only) {
        this.profile = profile;
        this.only = only;
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
        String profileName = "quick";
        List<String> targets = List.of("h2");
        String only = ".*";
        Path out = Path.of(System.getProperty("bench.out", "target/bench"));
        boolean durable = false;
        List<Integer> threads = null;
        Integer claims = null;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value after " + args[i] + "; " + USAGE);
            }
            switch (args[i]) {
                case "--profile" -> profileName = args[++i];
                case "--targets" -> {
                    String value = args[++i];
                    targets = List.of((value.equals("all") ? Targets.KNOWN : value).split(",\\s*"));
                }
                case "--only" -> only = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                case "--durable" -> durable = Boolean.parseBoolean(args[++i]);
                case "--claim-concurrency" -> claims = "unlimited".equals(args[++i]) ? Integer.MAX_VALUE
                        : Integer.valueOf(args[i]);
                case "--threads" -> threads = java.util.Arrays.stream(args[++i].split(",")).map(String::trim)
                        .map(Integer::valueOf).toList();
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; " + USAGE);
            }
        }
        Profile profile = Profile.named(profileName);
        if (threads != null) {
            profile = profile.withThreads(threads);
        }
        Pattern pattern = Pattern.compile(only, Pattern.CASE_INSENSITIVE);
        Bench bench = new Bench(profile, s -> pattern.matcher(s).find());
        bench.claimConcurrency = claims;
        long t0 = System.nanoTime();
        for (String name : targets) {
            try (BenchTarget target = Targets.create(name.trim(), durable)) {
                bench.runAll(target);
            }
        }
        Path written = bench.write(out, Duration.ofNanos(System.nanoTime() - t0));
        System.out.println("wrote " + written.toAbsolutePath());
        return written;
    }

    private boolean want(String workload) {
        return only.test(workload);
    }

    private void runAll(BenchTarget target) throws Exception {
        System.out.println("== " + target.name() + " (profile " + profile.name() + ")");
        databases.add(target.name() + ": " + target.settings());
        RowQueues.Builder builder = RowQueues.builder(target.dataSource());
        if (claimConcurrency != null) {
            builder.claimConcurrency(claimConcurrency);
        }
        try (RowQueues plain = builder.build()) {
            boolean postgres = plain.database().dialect().equals("postgresql");
            roundTrips(target, plain);
            Workloads w = new Workloads(target, plain);
            workloads = w;
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
                List<Ratio> vsInsert = List.of(new Ratio("bare INSERT", insert));
                List<Ratio> vsUpdate = List.of(new Ratio("bare UPDATE", update));
                List<Ratio> vsHot = List.of(new Ratio("bare UPDATE of the hot row", hot));
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
                List<Ratio> vsEnqueue = new ArrayList<>(vsInsert);
                if (peer.isPresent()) {
                    double schedule = cell(target, "enqueue, db-scheduler schedule()", threads, vsInsert, "",
                            () -> Harness.measure(profile, threads, peer.get().enqueue()));
                    vsEnqueue.add(new Ratio("db-scheduler", schedule));
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
                List<Ratio> vsClaim = new ArrayList<>(vsUpdate);
                if (peer.isPresent()) {
                    double executions = cell(target, "claim+ack, db-scheduler executions (no-op task)", threads,
                            List.of(), peer.get().polling() + ", " + threads + " executor threads", () -> {
                                try (Peer.Executions e = peer.get().new Executions(threads)) {
                                    return Harness.observe(profile, e);
                                }
                            });
                    vsClaim.add(new Ratio("db-scheduler", executions));
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
                    Double plainLoop = rates.get(key(target, workerLoop(batch), threads));
                    List<Ratio> vsPlain = plainLoop == null ? List.of()
                            : List.of(new Ratio("plain worker loop", plainLoop));
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
                        Double smallRate = rates.get(key(target, small, threads));
                        cell(target, bigBacklog(batch), threads,
                                smallRate == null ? List.of() : List.of(new Ratio("small backlog", smallRate)),
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
            List<Ratio> vs = List.of();
            if (peer.isPresent()) {
                double executions = cell(target, workerRow(true, handler, false), threads, List.of(),
                        peer.get().polling() + ", " + threads + " executor threads; " + analyzedNote(target), () -> {
                            try (Peer.Executions e = peer.get().new Executions(threads, handler, floor)
                                    .analyzedOn(target)) {
                                return Harness.observe(profile, e);
                            }
                        });
                vs = List.of(new Ratio("db-scheduler", executions));
            }
            for (boolean prefetch : new boolean[] {false, true}) {
                int ahead = prefetch ? threads : -1;
                cell(target, workerRow(false, handler, prefetch), threads, vs, "WorkerOptions.threads(" + threads
                        + ")" + (prefetch ? ".withPrefetch(" + ahead + "), fixed" : " (the defaults: up to 1x ahead,"
                        + " within 100 ms)") + "; "
                        + analyzedNote(target), () -> {
                            try (Workers.Throughput t = workers.new Throughput(threads, ahead, handler, floor)) {
                                return Harness.observe(profile, t);
                            }
                        });
            }
        }
        // latency: longer rounds than the profile's, for enough samples of a trickle (quick: 3 x 4 s, 240 jobs)
        Profile slow = profile.name().equals("smoke") ? profile : profile.withIteration(
                profile.iteration().compareTo(Duration.ofSeconds(4)) < 0 ? Duration.ofSeconds(4) : profile.iteration());
        String rqNote = (rq.database().capabilities().contains(Capability.WAKEUP)
                ? "woken by the database (LISTEN/NOTIFY)" : "polling: 50 ms, doubling to the poll interval of 200 ms,"
                + " jittered") + "; rate = jobs handled per second";
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
            try (Workers.Latency l = workers.new Latency(threads, TRICKLE_PER_SECOND)) {
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
            Row last = rows.remove(rows.size() - 1);
            rows.add(new Row(last.target(), last.workload(), last.threads(), last.m(), last.vs(), String.format(
                    Locale.ROOT, "%s; %d handlers sleeping %d ms: %d heartbeat statements in %.2f s, %.1f jobs per"
                            + " statement; %d statements in all", setting, threads, sleep.toMillis(), h.statements(),
                    h.seconds(), h.jobsPerStatement(), h.all())));
            System.out.println("      " + rows.get(rows.size() - 1).note());
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

    private int order(String workload) {
        return order.computeIfAbsent(workload, k -> order.size());
    }

    private static String key(BenchTarget target, String workload, int threads) {
        return target.name() + "|" + workload + "|" + threads;
    }

    @FunctionalInterface
    private interface Measure {
        Harness.Measurement run() throws Exception;
    }

    private double cell(BenchTarget target, String workload, int threads, Measure measure) throws Exception {
        return cell(target, workload, threads, List.of(), "", measure);
    }

    private double cell(BenchTarget target, String workload, int threads, List<Ratio> vs, String note, Measure measure)
            throws Exception {
        if (!want(workload)) {
            return 0;
        }
        order(workload);
        long retriesBefore = workloads == null ? 0 : workloads.retries();
        Harness.Measurement m = measure.run();
        long retried = workloads == null ? 0 : workloads.retries() - retriesBefore;
        String fullNote = note;
        if (m.idleOperations() > 0) {
            fullNote += (fullNote.isEmpty() ? "" : "; ") + m.idleOperations() + " operations found nothing";
        }
        if (retried > 0) {
            fullNote += (fullNote.isEmpty() ? "" : "; ") + retried + " transactions run again after a deadlock";
        }
        Row row = new Row(target.name(), workload, threads, m, vs, fullNote);
        rows.add(row);
        rates.put(key(target, workload, threads), m.median());
        System.out.printf(Locale.ROOT, "   %-78s %2d thr %9.0f/s (%3.0f%%)  p50 %7s  p99 %7s  %s %s%n", workload, threads,
                m.median(), m.spreadPercent(), micros(m, m.p50Micros()), micros(m, m.p99Micros()), ratios(row),
                fullNote);
        return m.median();
    }

    private static String micros(Harness.Measurement m, double value) {
        return m.hasLatency() ? String.format(Locale.ROOT, "%,.0f", value) : "n/a";
    }

    private static String ratios(Row r) {
        StringBuilder b = new StringBuilder();
        for (Ratio ratio : r.vs()) {
            if (ratio.rate() > 0) {
                b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2fx %s",
                        r.m().median() / ratio.rate(), ratio.name()));
            }
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ exact counts

    /** Counts statements, commits, session calls and network round trips per operation, single-threaded, exactly. */
    private void roundTrips(BenchTarget target, RowQueues plain) throws Exception {
        if (!want("round trips")) {
            return;
        }
        Optional<BenchTarget.Endpoint> endpoint = target.endpoint();
        RoundTripProxy proxy = null;
        FixedPool fixed = null;
        DataSource base = target.dataSource();
        if (endpoint.isPresent()) {
            BenchTarget.Endpoint e = endpoint.get();
            proxy = new RoundTripProxy(e.host(), e.port());
            fixed = new FixedPool(e.url().apply(proxy.localPort()), e.user(), e.password(), 4);
            base = fixed;
        }
        CountingDataSource counted = new CountingDataSource(base);
        Counter c = new Counter(target, counted, proxy);
        try (RowQueues rq = RowQueues.builder(counted).build()) {
            int n = 200;
            RingQueue ring = rq.ring("bench_rt_ring", 10);
            ring.push("g", "warm");
            c.count("ring push (safe), existing group", n, "", () -> ring.push("g", "x"));
            c.count("ring push (safe), new group", n, "", i -> ring.push("new" + i, "x"));
            if (rq.database().capabilities().contains(Capability.SINGLE_WRITER_RING)) {
                RingQueue single = rq.ring("bench_rt_single", RingOptions.capacity(10).strategy(RingStrategy.SINGLE_WRITER));
                single.push("g", "warm");
                c.count("ring push (single writer)", n, "", () -> single.push("g", "x"));
            }
            WorkQueue q = rq.workQueue("bench_rt_work");
            c.count("enqueue", n, "", () -> q.enqueue("x"));
            List<Job> claimed = new ArrayList<>();
            c.count("claim, batch 1", n, "", () -> claimed.addAll(q.claim(1)));
            c.count("ack", n, "", () -> q.ack(claimed.remove(claimed.size() - 1)));
            q.enqueueAll(java.util.Collections.nCopies(n + 1, "x"), Enqueue.defaults());
            List<Job> held = new ArrayList<>(q.claim(1));
            c.count("ackAndClaim, 1 acked + batch 1", n, "acks the job claimed last and claims the next",
                    () -> {
                        List<Job> next = q.ackAndClaim(held, 1).claimed();
                        held.clear();
                        held.addAll(next);
                    });
            held.forEach(q::ack);
            for (int i = 0; i < 20; i++) {
                q.enqueueAll(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), Enqueue.defaults());
            }
            c.count("claim, batch 10 (10 ready)", 20, "", () -> q.claim(10));
            c.count("claim, nothing ready", n, "", () -> q.claim(10));
            q.enqueueAll(List.of("a"), Enqueue.defaults());
            c.count("blocking claim(1, 1 s), a job ready", 1, "the first blocking claim also opens the listening"
                    + " connection where the dialect listens", () -> q.claim(1, Duration.ofSeconds(1)));
            Counters counters = rq.counters("bench_rt_counters");
            counters.increment("k");
            c.count("counter increment, existing key", n, "", () -> counters.increment("k"));
            c.count("counter increment, new key", n, "", i -> counters.increment("new" + i));
            WorkQueue jobs = rq.workQueue("bench_rt_worker");
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : new int[] {1, 16}) {
                    int count = 1000;
                    c.count("worker, " + handler.label + ", " + threads + (threads == 1 ? " thread" : " threads")
                                    + ", per job", count, "1,000 jobs from the worker's start to its close: claims with the"
                                    + " acks riding on them, empty claims at the end, the acks close flushes",
                            () -> jobs.enqueueAll(java.util.Collections.nCopies(count, "x"), Enqueue.defaults()),
                            () -> runWorker(jobs, handler, threads, count));
                }
            }
            rq.dropQueue("bench_rt_worker");
            rq.dropQueue("bench_rt_ring");
            rq.dropQueue("bench_rt_work");
            rq.dropQueue("bench_rt_counters");
            if (rq.database().capabilities().contains(Capability.SINGLE_WRITER_RING)) {
                rq.dropQueue("bench_rt_single");
            }
        }
        if (target.peer().isPresent()) {
            Peer peer = target.peer().get();
            Harness.Operation schedule = peer.enqueueVia(counted);
            c.count("db-scheduler schedule() (enqueue)", 200, "", i -> schedule.run(0, i));
            c.count("db-scheduler execution (" + peer.polling() + ", 1 thread)", 1000,
                    "amortized over 1,000 executions, including the scheduler's start-up housekeeping",
                    () -> { }, () -> peer.runCounted(counted, 1, 1000));
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : new int[] {1, 16}) {
                    if (handler == Workers.Handler.NOOP && threads == 1) {
                        continue; // the row above
                    }
                    c.count("db-scheduler execution, " + handler.label + ", " + threads
                                    + (threads == 1 ? " thread" : " threads") + ", per execution", 1000,
                            "amortized over 1,000 executions, including the scheduler's start-up housekeeping",
                            () -> { }, () -> peer.runCounted(counted, threads, 1000, handler));
                }
            }
        }
        if (fixed != null) {
            fixed.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    /** Runs {@code n} jobs of {@code queue} on a worker of {@code threads} threads, then closes it. */
    private static void runWorker(WorkQueue queue, Workers.Handler handler, int threads, int n) throws Exception {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
        try (dev.rowqueue.Worker worker = queue.worker(job -> {
            handler.run();
            done.countDown();
        }, dev.rowqueue.WorkerOptions.threads(threads)).start()) {
            if (!done.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
                throw new IllegalStateException("the worker ran " + (n - done.getCount()) + " of " + n
                        + " jobs in 2 minutes");
            }
        }
    }

    @FunctionalInterface
    private interface Indexed {
        void run(long i) throws Exception;
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** Tallies what one operation costs. */
    private final class Counter {
        private final BenchTarget target;
        private final CountingDataSource c;
        private final RoundTripProxy proxy;

        Counter(BenchTarget target, CountingDataSource c, RoundTripProxy proxy) {
            this.target = target;
            this.c = c;
            this.proxy = proxy;
        }

        void count(String operation, int n, String note, Action op) throws Exception {
            count(operation, n, note, i -> op.run());
        }

        void count(String operation, int n, String note, Indexed op) throws Exception {
            count(operation, n, note, () -> { }, () -> {
                for (long i = 0; i < n; i++) {
                    op.run(i);
                }
            });
        }

        void count(String operation, int n, String note, Action setup, Action all) throws Exception {
            setup.run();
            long e = c.executions();
            long k = c.commits() + c.rollbacks();
            long s = c.sessionCalls();
            long t = proxy == null ? 0 : proxy.roundTrips();
            all.run();
            RoundTrips r = new RoundTrips(target.name(), operation, (c.executions() - e) / (double) n,
                    (c.commits() + c.rollbacks() - k) / (double) n, (c.sessionCalls() - s) / (double) n,
                    proxy == null ? Double.NaN : (proxy.roundTrips() - t) / (double) n, note);
            trips.add(r);
            System.out.printf(Locale.ROOT, "   %-50s %.2f statements, %.2f commits, %.2f session calls, %s round trips%n",
                    operation, r.statements(), r.commits(), r.sessionCalls(),
                    proxy == null ? "n/a" : String.format(Locale.ROOT, "%.2f", r.roundTrips()));
        }
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
        LIMIT_1("maxLeasedPerKey(1)", WorkQueueOptions.defaults().maxLeasedPerKey(1)),
        /** Fair claims. */
        FAIR("fairClaims", WorkQueueOptions.defaults().fairClaims(true)),
        /** Both. */
        LIMIT_1_FAIR("maxLeasedPerKey(1) + fairClaims", WorkQueueOptions.defaults().maxLeasedPerKey(1)
                .fairClaims(true));

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

    private List<Target> targets() {
        List<Target> result = new ArrayList<>();
        int max = profile.threads().get(profile.threads().size() - 1);
        for (String db : rows.stream().map(Row::target).distinct().toList()) {
            Double insert = rates.get(db + "|baseline: bare INSERT of one row, own transaction|" + max);
            for (int capacity : new int[] {10, 10_000}) {
                Double push = rates.get(db + "|ring push, rowqueue (safe), 1000 groups, capacity " + capacity + "|" + max);
                if (insert != null && push != null) {
                    double ratio = push / insert;
                    result.add(new Target(db, "ring push (safe) >= 0.6 x bare INSERT, " + max
                            + " threads, 1000 groups, capacity " + capacity, String.format(Locale.ROOT,
                            "%.2fx (%,.0f vs %,.0f /s)", ratio, push, insert), ratio >= 0.6));
                }
            }
            for (int threads : profile.threads()) {
                Double peer = rates.get(db + "|claim+ack, db-scheduler executions (no-op task)|" + threads);
                for (boolean loop : new boolean[] {false, true}) {
                    for (int batch : new int[] {1, 10}) {
                        String workload = loop ? workerLoop(batch) : "claim+ack, rowqueue, batch " + batch;
                        Double claim = rates.get(db + "|" + workload + "|" + threads);
                        if (peer != null && claim != null) {
                            result.add(new Target(db, (loop ? "worker loop (ackAndClaim) " : "claim then ack ")
                                    + "batch " + batch + " ahead of db-scheduler, " + threads + " threads",
                                    String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f jobs/s)", claim / peer, claim,
                                            peer), claim > peer));
                        }
                    }
                }
            }
            for (int threads : profile.threads()) {
                for (Workers.Handler handler : Workers.Handler.values()) {
                    Double peer = rates.get(db + "|" + workerRow(true, handler, false) + "|" + threads);
                    for (boolean prefetch : new boolean[] {false, true}) {
                        Double worker = rates.get(db + "|" + workerRow(false, handler, prefetch) + "|" + threads);
                        if (peer != null && worker != null && peer > 0) {
                            result.add(new Target(db, "rowqueue Worker >= 1.0 x db-scheduler, " + handler.label
                                    + (prefetch ? ", prefetch = threads (not the default)" : "") + ", " + threads
                                    + " threads", String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f jobs/s)",
                                    worker / peer, worker, peer), worker >= peer));
                        }
                    }
                }
            }
            int allowed = db.startsWith("PostgreSQL") ? 1 : db.startsWith("MariaDB") || db.startsWith("MySQL") ? 2 : -1;
            if (allowed > 0) {
                for (RoundTrips t : trips) {
                    if (t.target().equals(db) && !Double.isNaN(t.roundTrips())
                            && (t.operation().startsWith("ring push (safe), existing") || t.operation().equals("claim, batch 1")
                            || t.operation().startsWith("ackAndClaim")
                            || t.operation().startsWith("counter increment, existing"))) {
                        result.add(new Target(db, t.operation() + ": at most " + allowed + " round trip"
                                + (allowed > 1 ? "s" : ""), String.format(Locale.ROOT, "%.2f", t.roundTrips()),
                                t.roundTrips() <= allowed));
                    }
                }
            }
        }
        return result;
    }

    private Optional<Row> row(String db, String workload, int threads) {
        return rows.stream().filter(r -> r.target().equals(db) && r.workload().equals(workload)
                && r.threads() == threads).findFirst();
    }

    private static String ms(Optional<Row> r) {
        return r.isEmpty() || !r.get().m().hasLatency() ? "" : String.format(Locale.ROOT, "%,.1f / %,.1f",
                r.get().m().p50Micros() / 1e3, r.get().m().p99Micros() / 1e3);
    }

    /** The worker rows again, one line per handler and thread count, for the documentation. */
    private void workersSection(StringBuilder md) {
        List<String> dbs = rows.stream().filter(r -> r.workload().startsWith("workers: ")).map(Row::target).distinct()
                .toList();
        if (dbs.isEmpty()) {
            return;
        }
        md.append("## Workers against db-scheduler\n\n");
        md.append("Jobs a second over a backlog (medians), ratio to db-scheduler with the same handler and threads in")
                .append(" this run; enqueue-to-start p50 / p99 in ms of a trickle of ").append(TRICKLE_PER_SECOND)
                .append(" jobs/s onto an idle worker; heartbeat statements a second with every handler running, and")
                .append(" the jobs each statement covered.\n\n");
        md.append("| Database | Handler | Threads | db-scheduler | Worker | ratio | Worker, prefetch = threads | ratio |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (String db : dbs) {
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : profile.threads()) {
                    Optional<Row> peer = row(db, workerRow(true, handler, false), threads);
                    Optional<Row> plain = row(db, workerRow(false, handler, false), threads);
                    Optional<Row> ahead = row(db, workerRow(false, handler, true), threads);
                    if (plain.isEmpty()) {
                        continue;
                    }
                    md.append("| ").append(db).append(" | ").append(handler.label).append(" | ").append(threads)
                            .append(" | ").append(peer.map(r -> String.format(Locale.ROOT, "%,.0f", r.m().median()))
                                    .orElse("")).append(" | ")
                            .append(String.format(Locale.ROOT, "%,.0f", plain.get().m().median())).append(" | ")
                            .append(ratio(plain, peer)).append(" | ")
                            .append(ahead.map(r -> String.format(Locale.ROOT, "%,.0f", r.m().median())).orElse(""))
                            .append(" | ").append(ratio(ahead, peer)).append(" |\n");
                }
            }
        }
        md.append("\n| Database | Threads | enqueue-to-start, db-scheduler | enqueue-to-start, Worker |")
                .append(" heartbeats/s, db-scheduler (jobs each) | heartbeats/s, Worker (jobs each) |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (String db : dbs) {
            for (int threads : profile.threads()) {
                md.append("| ").append(db).append(" | ").append(threads).append(" | ")
                        .append(ms(row(db, workerLatencyRow(true), threads))).append(" | ")
                        .append(ms(row(db, workerLatencyRow(false), threads))).append(" | ")
                        .append(beats(row(db, workerHeartbeatRow(true), threads))).append(" | ")
                        .append(beats(row(db, workerHeartbeatRow(false), threads))).append(" |\n");
            }
        }
        md.append('\n');
    }

    private static String ratio(Optional<Row> r, Optional<Row> peer) {
        return r.isEmpty() || peer.isEmpty() || peer.get().m().median() <= 0 ? ""
                : String.format(Locale.ROOT, "%.2fx", r.get().m().median() / peer.get().m().median());
    }

    private static String beats(Optional<Row> r) {
        if (r.isEmpty()) {
            return "";
        }
        java.util.regex.Matcher m = Pattern.compile("([0-9.]+) jobs per statement").matcher(r.get().note());
        return String.format(Locale.ROOT, "%.1f", r.get().m().median()) + (m.find() ? " (" + m.group(1) + ")" : "");
    }

    private Path write(Path dir, Duration took) throws Exception {
        Files.createDirectories(dir);
        List<Row> sorted = new ArrayList<>(rows);
        List<String> dbOrder = rows.stream().map(Row::target).distinct().toList();
        sorted.sort(Comparator.<Row>comparingInt(r -> dbOrder.indexOf(r.target()))
                .thenComparingInt(r -> order.getOrDefault(r.workload(), Integer.MAX_VALUE))
                .thenComparingInt(Row::threads));
        StringBuilder md = new StringBuilder();
        md.append("# rowqueue benchmarks\n\n");
        md.append("Machine: ").append(Machine.describe()).append(". Load average (1, 5, 15 min) at start ")
                .append(loadAtStart).append(", at end ").append(Machine.loadAverage()).append(".\n\n");
        md.append("Run ").append(Instant.now()).append(", profile `").append(profile.name()).append("`: warm-up ")
                .append(profile.warmup().toMillis()).append(" ms, then ").append(profile.iterations()).append(" timed")
                .append(" iterations of ").append(profile.iteration().toMillis()).append(" ms per cell; the median")
                .append(" iteration is reported with the spread (max - min) / median. Whole run: ")
                .append(took.toSeconds()).append(" s.\n\n");
        for (String db : databases) {
            md.append("- ").append(db).append('\n');
        }
        md.append("- rowqueue: claimConcurrency ").append(claimConcurrency == null
                        ? "the dialect's default (no limit on H2; on PostgreSQL and MariaDB the processors, at least 2: "
                        + Math.max(2, Runtime.getRuntime().availableProcessors()) + "; on SQLite 1)"
                        : claimConcurrency == Integer.MAX_VALUE ? "unlimited" : claimConcurrency.toString())
                .append("; claims that wait for a permit run together as one statement.\n");
        md.append("- Pools: HikariCP, ").append(Targets.POOL).append(" connections. Peer: ").append(Peer.CONFIG)
                .append(".\n\n");
        List<Target> targets = targets();
        if (!targets.isEmpty()) {
            md.append("## Targets\n\n| Database | Target | Measured | Met |\n|---|---|---|---|\n");
            for (Target t : targets) {
                md.append("| ").append(t.target()).append(" | ").append(t.check()).append(" | ").append(t.measured())
                        .append(" | ").append(t.met() ? "yes" : "**no**").append(" |\n");
            }
            md.append('\n');
        }
        workersSection(md);
        md.append("## Throughput and latency\n\n");
        md.append("Rates count units of work per second: pushes, jobs enqueued, jobs claimed and acked, executions,")
                .append(" increments. Latency is per operation (a claim+ack of a whole batch), except for")
                .append(" enqueue-to-claim.\n\n");
        md.append("| Database | Workload | Threads | per second | spread | ratio | p50 µs | p99 µs | notes |\n");
        md.append("|---|---|---:|---:|---:|---|---:|---:|---|\n");
        for (Row r : sorted) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %.0f%% | %s | %s | %s | %s |%n", r.target(),
                    r.workload(), r.threads(), r.m().median(), r.m().spreadPercent(), ratios(r),
                    micros(r.m(), r.m().p50Micros()), micros(r.m(), r.m().p99Micros()), r.note()));
        }
        md.append("\n## Statements and round trips per operation\n\n");
        md.append("Counted single-threaded and exactly: statements and commits by a JDBC proxy; session calls are")
                .append(" `setAutoCommit`, `get/setTransactionIsolation` and savepoints (a driver may answer them from")
                .append(" its own state or with a round trip); network round trips by a TCP relay between the driver")
                .append(" and the server (every exchange the driver makes, whatever the JDBC call; n/a in-process).\n\n");
        md.append("| Database | Operation | statements | commits | session calls | network round trips | notes |\n");
        md.append("|---|---|---:|---:|---:|---:|---|\n");
        for (RoundTrips t : trips) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %s | %s |%n", t.target(), t.operation(),
                    t.statements(), t.commits(), t.sessionCalls(),
                    Double.isNaN(t.roundTrips()) ? "n/a" : String.format(Locale.ROOT, "%.2f", t.roundTrips()), t.note()));
        }
        Path file = dir.resolve("results.md");
        Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("results.json"), json(sorted, targets), StandardCharsets.UTF_8);
        return file;
    }

    private String json(List<Row> sorted, List<Target> targets) {
        StringBuilder json = new StringBuilder("{\"profile\": \"" + profile.name() + "\",\n \"machine\": \""
                + esc(Machine.describe()) + "\", \"loadAtStart\": \"" + loadAtStart + "\",\n \"rows\": [\n");
        for (int i = 0; i < sorted.size(); i++) {
            Row r = sorted.get(i);
            StringBuilder vs = new StringBuilder();
            for (Ratio ratio : r.vs()) {
                if (ratio.rate() > 0) {
                    vs.append(vs.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "\"%s\": %.3f",
                            esc(ratio.name()), r.m().median() / ratio.rate()));
                }
            }
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"workload\": \"%s\", \"threads\": %d,"
                            + " \"median\": %.1f, \"min\": %.1f, \"max\": %.1f, \"p50us\": %s, \"p99us\": %s,"
                            + " \"ratios\": {%s}, \"note\": \"%s\"}%s%n", esc(r.target()), esc(r.workload()), r.threads(),
                    r.m().median(), r.m().min(), r.m().max(), r.m().hasLatency() ? String.format(Locale.ROOT, "%.1f",
                            r.m().p50Micros()) : "null", r.m().hasLatency() ? String.format(Locale.ROOT, "%.1f",
                            r.m().p99Micros()) : "null", vs, esc(r.note()), i + 1 < sorted.size() ? "," : ""));
        }
        json.append(" ],\n \"roundTrips\": [\n");
        for (int i = 0; i < trips.size(); i++) {
            RoundTrips t = trips.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"operation\": \"%s\", \"statements\": %.2f,"
                            + " \"commits\": %.2f, \"sessionCalls\": %.2f, \"roundTrips\": %s}%s%n", esc(t.target()),
                    esc(t.operation()), t.statements(), t.commits(), t.sessionCalls(),
                    Double.isNaN(t.roundTrips()) ? "null" : String.format(Locale.ROOT, "%.2f", t.roundTrips()),
                    i + 1 < trips.size() ? "," : ""));
        }
        json.append(" ],\n \"targets\": [\n");
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"check\": \"%s\", \"measured\": \"%s\","
                            + " \"met\": %s}%s%n", esc(t.target()), esc(t.check()), esc(t.measured()), t.met(),
                    i + 1 < targets.size() ? "," : ""));
        }
        return json.append(" ]\n}\n").toString();
    }

    private static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
