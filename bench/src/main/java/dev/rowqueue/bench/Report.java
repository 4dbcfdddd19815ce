package dev.rowqueue.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** Renders a run's {@link Results}: {@code results.md} (the tables, with the machine and settings) and {@code results.json}. */
final class Report {

    private final Results results;
    private final Profile profile;
    private final Integer claimConcurrency;
    private final String loadAtStart;

    Report(Results results, Profile profile, Integer claimConcurrency, String loadAtStart) {
        this.results = results;
        this.profile = profile;
        this.claimConcurrency = claimConcurrency;
        this.loadAtStart = loadAtStart;
    }

    /** The targets of the main table (issues 7, 15), checked against this run's rows. */
    List<Results.Target> targets() {
        List<Results.Target> result = new ArrayList<>();
        int max = profile.threads().get(profile.threads().size() - 1);
        for (String db : results.rows.stream().map(Results.Row::target).distinct().toList()) {
            Double insert = results.rateKey(db + "|baseline: bare INSERT of one row, own transaction|" + max);
            for (int capacity : new int[] {10, 10_000}) {
                Double push = results.rateKey(db + "|ring push, rowqueue (safe), 1000 groups, capacity " + capacity + "|" + max);
                if (insert != null && push != null) {
                    double ratio = push / insert;
                    result.add(new Results.Target(db, "ring push (safe) >= 0.6 x bare INSERT, " + max
                            + " threads, 1000 groups, capacity " + capacity, String.format(Locale.ROOT,
                            "%.2fx (%,.0f vs %,.0f /s)", ratio, push, insert), ratio >= 0.6));
                }
            }
            for (int threads : profile.threads()) {
                Double peer = results.rateKey(db + "|claim+ack, db-scheduler executions (no-op task)|" + threads);
                for (boolean loop : new boolean[] {false, true}) {
                    for (int batch : new int[] {1, 10}) {
                        String workload = loop ? Bench.workerLoop(batch) : "claim+ack, rowqueue, batch " + batch;
                        Double claim = results.rateKey(db + "|" + workload + "|" + threads);
                        if (peer != null && claim != null) {
                            result.add(new Results.Target(db, (loop ? "worker loop (ackAndClaim) " : "claim then ack ")
                                    + "batch " + batch + " ahead of db-scheduler, " + threads + " threads",
                                    String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f jobs/s)", claim / peer, claim,
                                            peer), claim > peer));
                        }
                    }
                }
            }
            for (int threads : profile.threads()) {
                for (Workers.Handler handler : Workers.Handler.values()) {
                    Double peer = results.rateKey(db + "|" + Bench.workerRow(true, handler, false) + "|" + threads);
                    for (boolean prefetch : new boolean[] {false, true}) {
                        Double worker = results.rateKey(db + "|" + Bench.workerRow(false, handler, prefetch) + "|" + threads);
                        if (peer != null && worker != null && peer > 0) {
                            result.add(new Results.Target(db, "rowqueue Worker >= 1.0 x db-scheduler, " + handler.label
                                    + (prefetch ? ", prefetch = threads (not the default)" : "") + ", " + threads
                                    + " threads", String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f jobs/s)",
                                    worker / peer, worker, peer), worker >= peer));
                        }
                    }
                }
            }
            int allowed = db.startsWith("PostgreSQL") ? 1 : db.startsWith("MariaDB") || db.startsWith("MySQL") ? 2 : -1;
            if (allowed > 0) {
                for (Results.RoundTrips t : results.trips) {
                    if (t.target().equals(db) && !Double.isNaN(t.roundTrips())
                            && (t.operation().startsWith("ring push (safe), existing") || t.operation().equals("claim, batch 1")
                            || t.operation().startsWith("ackAndClaim")
                            || t.operation().startsWith("counter increment, existing"))) {
                        result.add(new Results.Target(db, t.operation() + ": at most " + allowed + " round trip"
                                + (allowed > 1 ? "s" : ""), String.format(Locale.ROOT, "%.2f", t.roundTrips()),
                                t.roundTrips() <= allowed));
                    }
                }
            }
        }
        for (Results.RateLimit r : results.rateLimits) {
            result.add(new Results.Target(r.target(), "rate limit: at most " + r.limit() + " starts in any "
                    + r.window().toMillis() + " ms window, " + r.nodes() + " nodes", r.maxInWindow() + " at most, "
                    + r.duplicates() + " jobs claimed twice", r.maxInWindow() <= r.limit() && r.duplicates() == 0));
            result.add(new Results.Target(r.target(), String.format(Locale.ROOT, "rate limit: average >= %.0f%% of the"
                    + " limit over %d s, %d nodes", RateLimitCell.AIM * 100, r.run().toSeconds(), r.nodes()),
                    String.format(Locale.ROOT, "%.1f%% (%.1f starts/s)", r.ofLimit() * 100, r.perSecond()),
                    r.ofLimit() >= RateLimitCell.AIM));
        }
        return result;
    }

    private static String ms(Optional<Results.Row> r) {
        return r.isEmpty() || !r.get().m().hasLatency() ? "" : String.format(Locale.ROOT, "%,.1f / %,.1f",
                r.get().m().p50Micros() / 1e3, r.get().m().p99Micros() / 1e3);
    }

    /** The worker rows again, one line per handler and thread count, for the documentation. */
    private void workersSection(StringBuilder md) {
        List<String> dbs = results.rows.stream().filter(r -> r.workload().startsWith("workers: ")).map(Results.Row::target).distinct()
                .toList();
        if (dbs.isEmpty()) {
            return;
        }
        md.append("## Workers against db-scheduler\n\n");
        md.append("Jobs a second over a backlog (medians), ratio to db-scheduler with the same handler and threads in")
                .append(" this run; enqueue-to-start p50 / p99 in ms of a trickle of ").append(Bench.TRICKLE_PER_SECOND)
                .append(" jobs/s onto an idle worker; heartbeat statements a second with every handler running, and")
                .append(" the jobs each statement covered.\n\n");
        md.append("| Database | Handler | Threads | db-scheduler | Worker | ratio | Worker, prefetch = threads | ratio |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (String db : dbs) {
            for (Workers.Handler handler : Workers.Handler.values()) {
                for (int threads : profile.threads()) {
                    Optional<Results.Row> peer = results.row(db, Bench.workerRow(true, handler, false), threads);
                    Optional<Results.Row> plain = results.row(db, Bench.workerRow(false, handler, false), threads);
                    Optional<Results.Row> ahead = results.row(db, Bench.workerRow(false, handler, true), threads);
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
                        .append(ms(results.row(db, Bench.workerLatencyRow(true), threads))).append(" | ")
                        .append(ms(results.row(db, Bench.workerLatencyRow(false), threads))).append(" | ")
                        .append(beats(results.row(db, Bench.workerHeartbeatRow(true), threads))).append(" | ")
                        .append(beats(results.row(db, Bench.workerHeartbeatRow(false), threads))).append(" |\n");
            }
        }
        md.append('\n');
    }

    private static String ratio(Optional<Results.Row> r, Optional<Results.Row> peer) {
        return r.isEmpty() || peer.isEmpty() || peer.get().m().median() <= 0 ? ""
                : String.format(Locale.ROOT, "%.2fx", r.get().m().median() / peer.get().m().median());
    }

    private static String beats(Optional<Results.Row> r) {
        if (r.isEmpty()) {
            return "";
        }
        java.util.regex.Matcher m = Pattern.compile("([0-9.]+) jobs per statement").matcher(r.get().note());
        return String.format(Locale.ROOT, "%.1f", r.get().m().median()) + (m.find() ? " (" + m.group(1) + ")" : "");
    }

    Path write(Path dir, Duration took) throws Exception {
        Files.createDirectories(dir);
        List<Results.Row> sorted = new ArrayList<>(results.rows);
        List<String> dbOrder = results.rows.stream().map(Results.Row::target).distinct().toList();
        sorted.sort(Comparator.<Results.Row>comparingInt(r -> dbOrder.indexOf(r.target()))
                .thenComparingInt(r -> results.orderOf(r.workload()))
                .thenComparingInt(Results.Row::threads));
        StringBuilder md = new StringBuilder();
        md.append("# rowqueue benchmarks\n\n");
        md.append("Machine: ").append(Machine.describe()).append(". Load average (1, 5, 15 min) at start ")
                .append(loadAtStart).append(", at end ").append(Machine.loadAverage()).append(".\n\n");
        md.append("Run ").append(Instant.now()).append(", profile `").append(profile.name()).append("`: warm-up ")
                .append(profile.warmup().toMillis()).append(" ms, then ").append(profile.iterations()).append(" timed")
                .append(" iterations of ").append(profile.iteration().toMillis()).append(" ms per cell; the median")
                .append(" iteration is reported with the spread (max - min) / median. Whole run: ")
                .append(took.toSeconds()).append(" s.\n\n");
        for (String db : results.databases) {
            md.append("- ").append(db).append('\n');
        }
        md.append("- rowqueue: claimConcurrency ").append(claimConcurrency == null
                        ? "the dialect's default (no limit on H2; on PostgreSQL and MariaDB the processors, at least 2: "
                        + Math.max(2, Runtime.getRuntime().availableProcessors()) + "; on SQLite 1)"
                        : claimConcurrency == Integer.MAX_VALUE ? "unlimited" : claimConcurrency.toString())
                .append("; claims that wait for a permit run together as one statement.\n");
        md.append("- Pools: HikariCP, ").append(Targets.POOL).append(" connections. Peer: ").append(Peer.CONFIG)
                .append(".\n\n");
        List<Results.Target> targets = targets();
        if (!targets.isEmpty()) {
            md.append("## Targets\n\n| Database | Target | Measured | Met |\n|---|---|---|---|\n");
            for (Results.Target t : targets) {
                md.append("| ").append(t.target()).append(" | ").append(t.check()).append(" | ").append(t.measured())
                        .append(" | ").append(t.met() ? "yes" : "**no**").append(" |\n");
            }
            md.append('\n');
        }
        PeerCells.render(md, results, profile);
        workersSection(md);
        RateLimitCell.render(md, results);
        md.append("## Throughput and latency\n\n");
        md.append("Rates count units of work per second: pushes, jobs enqueued, jobs claimed and acked, executions,")
                .append(" increments. Latency is per operation (a claim+ack of a whole batch), except for")
                .append(" enqueue-to-claim.\n\n");
        md.append("| Database | Workload | Threads | per second | spread | ratio | p50 µs | p99 µs | notes |\n");
        md.append("|---|---|---:|---:|---:|---|---:|---:|---|\n");
        for (Results.Row r : sorted) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %,.0f | %.0f%% | %s | %s | %s | %s |%n", r.target(),
                    r.workload(), r.threads(), r.m().median(), r.m().spreadPercent(), Results.ratios(r),
                    Results.micros(r.m(), r.m().p50Micros()), Results.micros(r.m(), r.m().p99Micros()), r.note()));
        }
        md.append("\n## Statements and round trips per operation\n\n");
        md.append("Counted single-threaded and exactly: statements and commits by a JDBC proxy; session calls are")
                .append(" `setAutoCommit`, `get/setTransactionIsolation` and savepoints (a driver may answer them from")
                .append(" its own state or with a round trip); network round trips by a TCP relay between the driver")
                .append(" and the server (every exchange the driver makes, whatever the JDBC call; n/a in-process).\n\n");
        md.append("| Database | Operation | statements | commits | session calls | network round trips | notes |\n");
        md.append("|---|---|---:|---:|---:|---:|---|\n");
        for (Results.RoundTrips t : results.trips) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %s | %s |%n", t.target(), t.operation(),
                    t.statements(), t.commits(), t.sessionCalls(),
                    Double.isNaN(t.roundTrips()) ? "n/a" : String.format(Locale.ROOT, "%.2f", t.roundTrips()), t.note()));
        }
        Path file = dir.resolve("results.md");
        Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("results.json"), json(sorted, targets), StandardCharsets.UTF_8);
        return file;
    }

    private String json(List<Results.Row> sorted, List<Results.Target> targets) {
        StringBuilder json = new StringBuilder("{\"profile\": \"" + profile.name() + "\",\n \"machine\": \""
                + esc(Machine.describe()) + "\", \"loadAtStart\": \"" + loadAtStart + "\",\n \"rows\": [\n");
        for (int i = 0; i < sorted.size(); i++) {
            Results.Row r = sorted.get(i);
            StringBuilder vs = new StringBuilder();
            for (Results.Ratio ratio : r.vs()) {
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
        for (int i = 0; i < results.trips.size(); i++) {
            Results.RoundTrips t = results.trips.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"operation\": \"%s\", \"statements\": %.2f,"
                            + " \"commits\": %.2f, \"sessionCalls\": %.2f, \"roundTrips\": %s}%s%n", esc(t.target()),
                    esc(t.operation()), t.statements(), t.commits(), t.sessionCalls(),
                    Double.isNaN(t.roundTrips()) ? "null" : String.format(Locale.ROOT, "%.2f", t.roundTrips()),
                    i + 1 < results.trips.size() ? "," : ""));
        }
        json.append(" ],\n \"sideBySide\": [\n");
        for (int i = 0; i < results.sides.size(); i++) {
            Results.Side s = results.sides.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"cell\": \"%s\", \"threads\": %d,"
                            + " \"system\": \"%s\", \"ran\": %s, \"median\": %s, \"min\": %s, \"max\": %s,"
                            + " \"p50us\": %s, \"p99us\": %s, \"note\": \"%s\"}%s%n", esc(s.target()), esc(s.cell()),
                    s.threads(), esc(s.system()), s.ran(), s.ran() ? num(s.m().median()) : "null",
                    s.ran() ? num(s.m().min()) : "null", s.ran() ? num(s.m().max()) : "null",
                    s.ran() && s.m().hasLatency() ? num(s.m().p50Micros()) : "null",
                    s.ran() && s.m().hasLatency() ? num(s.m().p99Micros()) : "null", esc(s.note()),
                    i + 1 < results.sides.size() ? "," : ""));
        }
        json.append(" ],\n \"rateLimits\": [\n");
        for (int i = 0; i < results.rateLimits.size(); i++) {
            Results.RateLimit r = results.rateLimits.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"nodes\": %d, \"threads\": %d,"
                            + " \"limit\": %d, \"windowMs\": %d, \"runMs\": %d, \"starts\": %d, \"maxInWindow\": %d,"
                            + " \"perSecond\": %.1f, \"ofLimit\": %.3f, \"duplicates\": %d, \"left\": %d}%s%n",
                    esc(r.target()), r.nodes(), r.threads(), r.limit(), r.window().toMillis(), r.run().toMillis(),
                    r.starts(), r.maxInWindow(), r.perSecond(), r.ofLimit(), r.duplicates(), r.left(),
                    i + 1 < results.rateLimits.size() ? "," : ""));
        }
        json.append(" ],\n \"targets\": [\n");
        for (int i = 0; i < targets.size(); i++) {
            Results.Target t = targets.get(i);
            json.append(String.format(Locale.ROOT, "  {\"database\": \"%s\", \"check\": \"%s\", \"measured\": \"%s\","
                            + " \"met\": %s}%s%n", esc(t.target()), esc(t.check()), esc(t.measured()), t.met(),
                    i + 1 < targets.size() ? "," : ""));
        }
        return json.append(" ]\n}\n").toString();
    }

    private static String num(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    private static String esc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
