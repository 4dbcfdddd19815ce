package dev.rowqueue.bench;

import dev.rowqueue.Capability;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.tck.CountingDataSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Runs the benchmarks and writes one table: rowqueue against its baselines on the same database, in one run.
 *
 * <pre>
 * java -jar rowqueue-bench.jar [--profile quick|full|smoke] [--targets h2,postgres,mariadb] [--only REGEX] [--out DIR]
 * </pre>
 */
public final class Bench {

    /** One row of the results. */
    record Row(String target, String family, String workload, int threads, Harness.Measurement m, String baseline,
               double baselineRate) {
        double ratio() {
            return baselineRate > 0 ? m.median() / baselineRate : Double.NaN;
        }
    }

    /** Statements per operation, exactly, from the counting proxy. */
    record RoundTrips(String target, String operation, double executions, double commits, double sessionCalls) {
    }

    private final Profile profile;
    private final Predicate<String> only;
    private final List<Row> rows = new ArrayList<>();
    private final List<RoundTrips> trips = new ArrayList<>();

    private Bench(Profile profile, Predicate<String> only) {
        this.profile = profile;
        this.only = only;
    }

    /**
     * @param args see the class comment
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String profileName = "quick";
        List<String> targets = List.of("h2");
        String only = ".*";
        Path out = Path.of("target", "bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--profile" -> profileName = args[++i];
                case "--targets" -> targets = List.of(args[++i].split(","));
                case "--only" -> only = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: [--profile quick|full|smoke] [--targets h2,postgres,mariadb] [--only REGEX] [--out DIR]");
            }
        }
        Profile profile = switch (profileName) {
            case "quick" -> Profile.quick();
            case "full" -> Profile.full();
            case "smoke" -> Profile.smoke();
            default -> throw new IllegalArgumentException("profile must be quick, full or smoke");
        };
        Pattern pattern = Pattern.compile(only, Pattern.CASE_INSENSITIVE);
        Bench bench = new Bench(profile, s -> pattern.matcher(s).find());
        for (String name : targets) {
            try (BenchTarget target = Targets.create(name)) {
                bench.runAll(target);
            }
        }
        bench.write(out);
    }

    private void runAll(BenchTarget target) throws Exception {
        System.out.println("== " + target.name() + " (profile " + profile.name() + ")");
        CountingDataSource counted = new CountingDataSource(target.dataSource());
        try (RowQueues rq = RowQueues.builder(counted).build(); RowQueues plain = RowQueues.builder(target.dataSource()).build()) {
            roundTrips(target, counted, rq);
            Workloads w = new Workloads(target, plain);
            boolean singleWriter = plain.database().capabilities().contains(Capability.SINGLE_WRITER_RING);
            for (int threads : profile.threads()) {
                double insert = cell(target, "baseline", "bare INSERT, own transaction", threads, w.bareInsert(), null, 0);
                double update = cell(target, "baseline", "bare UPDATE of one row, own transaction", threads,
                        w.bareUpdate(1000), null, 0);
                for (int groups : new int[] {1, 1000}) {
                    for (int capacity : new int[] {10, 10_000}) {
                        String shape = groups + (groups == 1 ? " group" : " groups") + ", capacity " + capacity;
                        cell(target, "ring", "rowqueue push (safe), " + shape, threads,
                                w.ringPush(groups, capacity, RingStrategy.SAFE, threads), "bare INSERT", insert);
                        if (singleWriter && (groups >= threads * 10 || threads == 1)) {
                            cell(target, "ring", "seed single statement (single writer), " + shape, threads,
                                    w.ringPush(groups, capacity, RingStrategy.SINGLE_WRITER, threads), "bare INSERT", insert);
                        }
                        cell(target, "ring", "naive insert+count+delete, " + shape, threads,
                                w.naiveRing(groups, capacity, threads), "bare INSERT", insert);
                    }
                }
                cell(target, "work", "rowqueue enqueue", threads, w.enqueue(), "bare INSERT", insert);
                for (int batch : new int[] {1, 10}) {
                    Workloads.Backlog backlog = w.backlog();
                    if (only.test("rowqueue claim+ack, batch " + batch)) {
                        backlog.fill(backlogFor(threads, batch));
                    }
                    cell(target, "work", "rowqueue claim+ack, batch " + batch, threads, backlog.claimAck(batch),
                            "bare UPDATE", update);
                }
                cell(target, "counter", "rowqueue increment, 1 hot key", threads, w.increment(1), "bare UPDATE", update);
                cell(target, "counter", "rowqueue increment, 1000 keys", threads, w.increment(1000), "bare UPDATE", update);
            }
            String big = "rowqueue claim+ack, batch 10, backlog " + profile.backlogJobs() + " + "
                    + profile.backlogJobs() / 10 + " dead";
            if (only.test(big)) {
                Workloads.Backlog backlog = w.backlog();
                System.out.println("   filling " + profile.backlogJobs() + " jobs and " + profile.backlogJobs() / 10
                        + " dead letters ...");
                backlog.kill(profile.backlogJobs() / 10);
                backlog.fill(profile.backlogJobs());
                cell(target, "work", big, 4, backlog.claimAck(10), null, 0);
            }
        }
    }

    private long backlogFor(int threads, int batch) {
        long seconds = profile.warmup().toSeconds() + 1 + (long) profile.iterations() * profile.iteration().toSeconds();
        return Math.min(profile.backlogJobs(), seconds * 3_000L * Math.min(threads, 4) * Math.min(batch, 4));
    }

    private double cell(BenchTarget target, String family, String workload, int threads, Harness.Operation op,
                        String baseline, double baselineRate) throws Exception {
        if (!only.test(workload)) {
            return 0;
        }
        Harness.Measurement m = Harness.measure(profile, threads, op);
        Row row = new Row(target.name(), family, workload, threads, m, baseline, baselineRate);
        rows.add(row);
        System.out.printf(Locale.ROOT, "   %-70s %2d thr %10.0f/s  (%4.1f%% spread)  p50 %7.0f us  p99 %7.0f us%s%s%n",
                workload, threads, m.median(), m.spreadPercent(), m.p50Micros(), m.p99Micros(),
                baseline == null ? "" : String.format(Locale.ROOT, "  %.2fx %s", row.ratio(), baseline),
                m.idleOperations() > 0 ? "  [" + m.idleOperations() + " empty claims]" : "");
        return m.median();
    }

    /** Counts statements, commits and session calls per operation, single-threaded, exactly. */
    private void roundTrips(BenchTarget target, CountingDataSource counted, RowQueues rq) {
        if (!only.test("round trips")) {
            return;
        }
        int n = 200;
        RingQueue ring = rq.ring("bench_rt_ring", 10);
        ring.push("g", "warm");
        count(target, counted, "ring push (existing group)", n, () -> ring.push("g", "x"));
        WorkQueue q = rq.workQueue("bench_rt_work");
        count(target, counted, "enqueue", n, () -> q.enqueue("x"));
        List<Job> claimed = new ArrayList<>();
        count(target, counted, "claim (batch 1)", n, () -> claimed.addAll(q.claim(1)));
        count(target, counted, "ack", n, () -> q.ack(claimed.remove(claimed.size() - 1)));
        q.enqueueAll(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), Enqueue.defaults());
        count(target, counted, "claim (batch 10, full)", 1, () -> q.claim(10));
        var counters = rq.counters("bench_rt_counters");
        counters.increment("k");
        count(target, counted, "increment (existing key)", n, () -> counters.increment("k"));
        rq.dropQueue("bench_rt_ring");
        rq.dropQueue("bench_rt_work");
        rq.dropQueue("bench_rt_counters");
    }

    private void count(BenchTarget target, CountingDataSource c, String operation, int n, Runnable op) {
        long e = c.executions();
        long k = c.commits();
        long s = c.sessionCalls();
        for (int i = 0; i < n; i++) {
            op.run();
        }
        RoundTrips r = new RoundTrips(target.name(), operation, (c.executions() - e) / (double) n,
                (c.commits() - k) / (double) n, (c.sessionCalls() - s) / (double) n);
        trips.add(r);
        System.out.printf(Locale.ROOT, "   %-30s %.2f statements, %.2f commits, %.2f session calls per operation%n",
                operation, r.executions(), r.commits(), r.sessionCalls());
    }

    private void write(Path dir) throws Exception {
        Files.createDirectories(dir);
        StringBuilder md = new StringBuilder();
        md.append("# rowqueue benchmarks\n\nProfile `").append(profile.name()).append("`: warm-up ")
                .append(profile.warmup().toMillis()).append(" ms, ").append(profile.iterations()).append(" x ")
                .append(profile.iteration().toMillis()).append(" ms iterations; median with min-max spread. Run at ")
                .append(Instant.now()).append(" on ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores, Java ").append(System.getProperty("java.version")).append(", ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch")).append(".\n\n");
        md.append("| Database | Workload | Threads | ops/s (median) | spread | vs baseline | p50 µs | p99 µs |\n");
        md.append("|---|---|---:|---:|---:|---|---:|---:|\n");
        for (Row r : rows) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %.0f%% | %s | %,.0f | %,.0f |%n", r.target(),
                    r.workload(), r.threads(), r.m().median(), r.m().spreadPercent(),
                    r.baseline() == null ? "" : String.format(Locale.ROOT, "%.2fx %s", r.ratio(), r.baseline()),
                    r.m().p50Micros(), r.m().p99Micros()));
        }
        md.append("\n## Statements per operation (exact, counted by a JDBC proxy)\n\n");
        md.append("| Database | Operation | statements | commits | session calls |\n|---|---|---:|---:|---:|\n");
        for (RoundTrips t : trips) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f |%n", t.target(), t.operation(),
                    t.executions(), t.commits(), t.sessionCalls()));
        }
        Files.writeString(dir.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
        StringBuilder json = new StringBuilder("{\"profile\": \"" + profile.name() + "\", \"rows\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"family\": \"%s\", \"workload\": \"%s\","
                            + " \"threads\": %d, \"median\": %.1f, \"min\": %.1f, \"max\": %.1f, \"p50us\": %.1f,"
                            + " \"p99us\": %.1f, \"baseline\": %s, \"ratio\": %s}%s%n", r.target(), r.family(),
                    r.workload(), r.threads(), r.m().median(), r.m().min(), r.m().max(), r.m().p50Micros(),
                    r.m().p99Micros(), r.baseline() == null ? "null" : "\"" + r.baseline() + "\"",
                    Double.isNaN(r.ratio()) ? "null" : String.format(Locale.ROOT, "%.3f", r.ratio()),
                    i + 1 < rows.size() ? "," : ""));
        }
        json.append("]}\n");
        Files.writeString(dir.resolve("results.json"), json.toString(), StandardCharsets.UTF_8);
        System.out.println("wrote " + dir.resolve("results.md").toAbsolutePath());
    }
}
