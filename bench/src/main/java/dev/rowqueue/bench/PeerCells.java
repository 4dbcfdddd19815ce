package dev.rowqueue.bench;

import dev.rowqueue.RowQueues;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * rowqueue and its peers side by side on one database, pool and handler, in one run: db-scheduler, JobRunr and
 * graphile-worker (PostgreSQL only, a Node.js child process). Each cell is one workload at one thread count, measured
 * for every system; the table gives each peer's value and rowqueue's ratio to it (rates: rowqueue / peer; latencies:
 * peer / rowqueue; above 1.0x rowqueue is ahead), and the CPU time each process spent per job in the timed rounds
 * ({@link CpuMeter}). A cell runs when {@code --only} finds its selector, {@code "peers: <cell>, <system>"}, e.g.
 * {@code --only 'peers: workers'} or {@code --only 'peers:.*graphile'}.
 */
final class PeerCells {

    /** The cells, in table order; {@code {threads}} cells run at each thread count of the profile. */
    static final String NOOP = "workers, no-op handler";
    static final String SLEEP = "workers, 1 ms handler";
    static final String ENQUEUE = "enqueue, one job per call";
    static final String ENQUEUE_BATCH = "enqueue, batches of " + Contender.BATCH;
    static final String LATENCY = "enqueue-to-start latency, idle worker, " + Bench.TRICKLE_PER_SECOND + " jobs/s";
    static final String HELD = ", a transaction held open";

    /** The systems, in column order. */
    static final List<String> SYSTEMS = List.of("rowqueue", "db-scheduler", "JobRunr", "graphile-worker");

    private final Results results;
    private final Options options;

    PeerCells(Results results, Options options) {
        this.results = results;
        this.options = options;
    }

    static String selector(String cell, String system) {
        return "peers: " + cell + ", " + system;
    }

    private boolean wantAny() {
        for (String system : SYSTEMS) {
            for (String cell : List.of(NOOP, SLEEP, ENQUEUE, ENQUEUE_BATCH, LATENCY, NOOP + HELD)) {
                if (results.want(selector(cell, system))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Runs the side-by-side cells on one database.
     *
     * @param target the database
     * @param rq     rowqueue on it
     * @param names  fresh queue names
     * @throws Exception on failure of a measurement
     */
    void run(BenchTarget target, RowQueues rq, Workloads names) throws Exception {
        if (!wantAny()) {
            return;
        }
        System.out.println("   side by side with the peers ...");
        Map<String, Contender> running = new LinkedHashMap<>();
        Map<String, String> notRun = new LinkedHashMap<>();
        running.put("rowqueue", Contender.rowqueue(target, rq, names));
        Optional<Peer> db = target.peer();
        if (db.isPresent()) {
            running.put("db-scheduler", Contender.dbScheduler(target, db.get()));
        } else {
            notRun.put("db-scheduler", "no db-scheduler support for this database here");
        }
        boolean jobrunr = target.name().startsWith("PostgreSQL") || target.name().startsWith("MariaDB");
        if (jobrunr && wantSystem("JobRunr")) {
            running.put("JobRunr", new JobRunrPeer(target));
        } else if (!jobrunr) {
            notRun.put("JobRunr", "JobRunr is measured on PostgreSQL and MariaDB");
        }
        if (wantSystem("graphile-worker")) {
            try {
                running.put("graphile-worker", GraphileWorkerPeer.start(target, options.node()));
            } catch (NotRun e) {
                notRun.put("graphile-worker", e.getMessage());
            }
        }
        try {
            for (Map.Entry<String, Contender> c : running.entrySet()) {
                results.systems.putIfAbsent(c.getKey() + "|" + target.name(), c.getValue().settings());
            }
            Profile profile = options.profile();
            for (int threads : profile.threads()) {
                for (Workers.Handler handler : Workers.Handler.values()) {
                    String cell = handler == Workers.Handler.NOOP ? NOOP : SLEEP;
                    each(target, running, notRun, cell, threads, false,
                            c -> c.workers(profile, handler, threads));
                }
                each(target, running, notRun, ENQUEUE, threads, false, c -> c.enqueue(profile, threads, 1));
                each(target, running, notRun, ENQUEUE_BATCH, threads, false,
                        c -> c.enqueue(profile, threads, Contender.BATCH));
            }
            int idle = profile.threads().get(0);
            each(target, running, notRun, LATENCY, idle, true, c -> c.latency(Bench.slow(profile), idle));
            if (options.holdHorizon()) {
                for (int threads : profile.threads()) {
                    each(target, running, notRun, NOOP + HELD, threads, false, c -> {
                        try (AutoCloseable held = holdHorizon(target)) {
                            return c.workers(profile, Workers.Handler.NOOP, threads);
                        }
                    });
                }
            }
        } finally {
            for (Contender c : running.values()) {
                c.close();
            }
        }
    }

    private boolean wantSystem(String system) {
        for (String cell : List.of(NOOP, SLEEP, ENQUEUE, ENQUEUE_BATCH, LATENCY, NOOP + HELD)) {
            if (results.want(selector(cell, system))) {
                return true;
            }
        }
        return false;
    }

    @FunctionalInterface
    private interface Cell {
        Harness.Measurement run(Contender c) throws Exception;
    }

    private void each(BenchTarget target, Map<String, Contender> running, Map<String, String> notRun, String cell,
                      int threads, boolean latency, Cell measure) throws Exception {
        for (String system : SYSTEMS) {
            if (!results.want(selector(cell, system))) {
                continue;
            }
            results.order(cell);
            Contender c = running.get(system);
            if (c == null) {
                if (notRun.containsKey(system)) {
                    results.side(new Results.Side(target.name(), cell, threads, system, null, notRun.get(system),
                            latency));
                }
                continue;
            }
            CpuMeter meter = new CpuMeter(target.serverMarker(), c::processes);
            Harness.Measurement m;
            try (AutoCloseable listening = Harness.listen(meter)) {
                m = measure.run(c);
            }
            results.side(new Results.Side(target.name(), cell, threads, system, m, meter.describe("job"), latency));
        }
    }

    /**
     * Opens a connection of its own (outside the pool, so that every system keeps the same pool) and holds a
     * transaction open on it, with a snapshot, until closed: what a long report query or a forgotten transaction
     * does to a queue's dead rows (PostgreSQL cannot remove row versions newer than its snapshot; InnoDB cannot purge
     * undo past its read view).
     */
    static AutoCloseable holdHorizon(BenchTarget target) throws Exception {
        BenchTarget.Endpoint e = target.endpoint().orElseThrow(() -> new IllegalStateException(
                "holding a transaction open needs a server reached over TCP"));
        Connection c = DriverManager.getConnection(e.url().apply(e.port()), e.user(), e.password());
        try (Statement s = c.createStatement()) {
            if (target.name().startsWith("PostgreSQL")) {
                s.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
                s.execute("SELECT txid_current(), count(*) FROM pg_class");
            } else {
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                s.execute("SELECT count(*) FROM information_schema.tables");
            }
        }
        return () -> {
            try (c) {
                c.createStatement().execute("ROLLBACK");
            }
        };
    }

    // ------------------------------------------------------------------ rendering

    /** Renders the side-by-side tables, if any cell ran. */
    static void render(StringBuilder md, Results results, Profile profile) {
        if (results.sides.isEmpty()) {
            return;
        }
        List<String> dbs = results.sides.stream().map(Results.Side::target).distinct().toList();
        md.append("## rowqueue and its peers, side by side\n\n");
        md.append("Same database, pool (").append(Targets.POOL).append(" connections) and handler for every system;")
                .append(" workers run over a backlog topped up between rounds, enqueues come from as many client")
                .append(" threads (graphile-worker: concurrent loops), latency is from just before an enqueue to the")
                .append(" handler's start on an idle worker with ").append(profile.threads().get(0))
                .append(profile.threads().get(0) == 1 ? " thread" : " threads").append(". Each peer's value is")
                .append(" followed by rowqueue's ratio to it (rates: rowqueue / peer; latency p50 and p99: peer /")
                .append(" rowqueue): above 1.0x rowqueue is ahead.\n\n");
        md.append("| Database | Cell | Threads |");
        for (String s : SYSTEMS) {
            md.append(' ').append(s).append(" |");
        }
        md.append("\n|---|---|---:|");
        md.append("---:|".repeat(SYSTEMS.size()));
        md.append('\n');
        List<Results.Side> sides = results.sides;
        List<String> cells = sides.stream().map(Results.Side::cell).distinct()
                .sorted(java.util.Comparator.comparingInt(results::orderOf)).toList();
        int met = 0;
        int aimed = 0;
        int compared = 0;
        List<String> misses = new ArrayList<>();
        for (String db : dbs) {
            for (String cell : cells) {
                List<Integer> threadCounts = sides.stream().filter(s -> s.target().equals(db) && s.cell().equals(cell))
                        .map(Results.Side::threads).distinct().sorted().toList();
                for (int threads : threadCounts) {
                    Optional<Results.Side> rq = find(sides, db, cell, threads, "rowqueue");
                    md.append("| ").append(db).append(" | ").append(cell).append(" | ").append(threads).append(" |");
                    for (String system : SYSTEMS) {
                        Optional<Results.Side> s = find(sides, db, cell, threads, system);
                        md.append(' ').append(s.map(PeerCells::value).orElse(""));
                        boolean comparable = s.isPresent() && s.get().ran() && rq.isPresent() && rq.get().ran()
                                && !system.equals("rowqueue");
                        if (comparable && !rq.get().latency() && s.get().m().median() <= 0) {
                            md.append(" (no job in the timed rounds: not compared)"); // no ratio to a rate of 0
                        } else if (comparable) {
                            double ratio = ratio(rq.get(), s.get());
                            md.append(rq.get().latency() ? String.format(Locale.ROOT, " (**%.2fx / %.2fx**)",
                                    s.get().m().p50Micros() / Math.max(1, rq.get().m().p50Micros()),
                                    s.get().m().p99Micros() / Math.max(1, rq.get().m().p99Micros()))
                                    : String.format(Locale.ROOT, " (**%.2fx**)", ratio));
                            compared++;
                            met += ratio >= 1.0 ? 1 : 0;
                            aimed += ratio >= 1.5 ? 1 : 0;
                            if (ratio < 1.0) {
                                misses.add(String.format(Locale.ROOT, "%s, %s, %d thread%s, against %s: %.2fx", db,
                                        cell, threads, threads == 1 ? "" : "s", system, ratio));
                            }
                        }
                        md.append(" |");
                    }
                    md.append('\n');
                }
            }
        }
        md.append(String.format(Locale.ROOT, "%nrowqueue at 1.0x or more in %d of %d comparisons, at 1.5x or more in"
                + " %d.%s%n%n", met, compared, aimed, misses.isEmpty() ? "" : " Below 1.0x: " + String.join("; ",
                misses) + "."));
        md.append("Settings:\n\n");
        for (Map.Entry<String, String> e : results.systems.entrySet()) {
            md.append("- ").append(e.getKey().replace("|", " on ")).append(": ").append(e.getValue()).append('\n');
        }
        md.append("\nEvery cell, with its spread and where the CPU went in the timed rounds (this JVM: the harness,")
                .append(" rowqueue and the Java peers; node: graphile-worker; server: the database's processes):\n\n");
        md.append("| Database | Cell | Threads | System | value | spread | notes |\n|---|---|---:|---|---:|---:|---|\n");
        for (String db : dbs) {
            for (String cell : cells) {
                for (Results.Side s : sides) {
                    if (s.target().equals(db) && s.cell().equals(cell)) {
                        md.append("| ").append(db).append(" | ").append(cell).append(" | ").append(s.threads())
                                .append(" | ").append(s.system()).append(" | ").append(value(s)).append(" | ")
                                .append(s.ran() ? String.format(Locale.ROOT, "%.0f%%", s.m().spreadPercent()) : "")
                                .append(" | ").append(s.ran() ? s.note() : "not run: " + s.note()).append(" |\n");
                    }
                }
            }
        }
        md.append('\n');
    }

    private static Optional<Results.Side> find(List<Results.Side> sides, String db, String cell, int threads,
                                               String system) {
        return sides.stream().filter(s -> s.target().equals(db) && s.cell().equals(cell) && s.threads() == threads
                && s.system().equals(system)).findFirst();
    }

    /** @return a rate ("12,345/s") or a latency ("2.1 / 4.0 ms", p50 / p99), or "not run" */
    static String value(Results.Side s) {
        if (!s.ran()) {
            return "not run";
        }
        if (s.latency()) {
            return String.format(Locale.ROOT, "%,.1f / %,.1f ms", s.m().p50Micros() / 1e3, s.m().p99Micros() / 1e3);
        }
        return String.format(Locale.ROOT, "%,.0f/s", s.m().median());
    }

    /**
     * @return rowqueue's advantage: its rate over the peer's, or the peer's latency over rowqueue's (the smaller of
     *         the p50 and p99 ratios)
     */
    static double ratio(Results.Side rowqueue, Results.Side peer) {
        if (rowqueue.latency()) {
            return Math.min(peer.m().p50Micros() / Math.max(1, rowqueue.m().p50Micros()),
                    peer.m().p99Micros() / Math.max(1, rowqueue.m().p99Micros()));
        }
        return rowqueue.m().median() / Math.max(1e-9, peer.m().median());
    }
}
