package dev.rowqueue.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * What a run measured, in the order it ran: the rows of the main table, the exact statement counts, the cells
 * of rowqueue and its peers side by side, and the rate-limit accuracy cells. {@link #cell} runs one measurement if {@code --only} selects it and records
 * it; {@link Report} renders it all.
 */
final class Results {

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

    /** The numbers the issues set targets for, checked after the run. */
    record Target(String target, String check, String measured, boolean met) {
    }

    /**
     * One system's value in one side-by-side cell.
     *
     * @param target   the database
     * @param cell     the cell, e.g. "workers, no-op handler"
     * @param threads  worker or client threads
     * @param system   rowqueue or the peer
     * @param m        what was measured, {@code null} if not run
     * @param note     CPU split and settings; or why it did not run
     * @param latency  whether the cell is a latency (lower is better) rather than a rate
     */
    record Side(String target, String cell, int threads, String system, Harness.Measurement m, String note,
                boolean latency) {
        boolean ran() {
            return m != null;
        }
    }

    /**
     * What the rate-limit accuracy cell measured ({@link RateLimitCell}): the lease starts the database wrote for the
     * jobs the nodes' workers claimed.
     *
     * @param target      the database
     * @param nodes       {@code RowQueues} instances, each on its own pool
     * @param threads     handler threads of each node's worker
     * @param limit       the rate limit: jobs per window
     * @param window      its window
     * @param run         how long the workers ran, from the first claim
     * @param starts      lease starts recorded, from the first claim until the workers were paused
     * @param maxInWindow the most starts in any window of {@code window} (half-open), over all recorded starts
     * @param inRun       starts within {@code run} of the first one
     * @param duplicates  jobs claimed more than once
     * @param left        jobs still ready afterwards (0: the backlog ran dry)
     */
    record RateLimit(String target, int nodes, int threads, int limit, Duration window,
                     Duration run, long starts, int maxInWindow, long inRun, long duplicates, long left) {

        /** @return the starts a second within the run */
        double perSecond() {
            return inRun / (run.toMillis() / 1e3);
        }

        /** @return {@link #perSecond()} as a fraction of the limit's rate */
        double ofLimit() {
            return perSecond() / (limit / (window.toMillis() / 1e3));
        }
    }

    /** A measurement to run. */
    @FunctionalInterface
    interface Measure {
        Harness.Measurement run() throws Exception;
    }

    final List<Row> rows = new ArrayList<>();
    final List<RoundTrips> trips = new ArrayList<>();
    final List<Side> sides = new ArrayList<>();
    final List<RateLimit> rateLimits = new ArrayList<>();
    /** Per database, its settings. */
    final List<String> databases = new ArrayList<>();
    /** Per system of the side-by-side cells: its version and settings. */
    final Map<String, String> systems = new LinkedHashMap<>();
    private final Map<String, Integer> order = new LinkedHashMap<>();
    private final Map<String, Double> rates = new HashMap<>();
    private final Predicate<String> only;
    /** Transactions the baselines ran again after a deadlock, so far (for the notes). */
    LongSupplier retries = () -> 0;

    Results(Predicate<String> only) {
        this.only = only;
    }

    /** @return whether {@code --only} selects this workload */
    boolean want(String workload) {
        return only.test(workload);
    }

    /** @return the position of a workload in the table, given at its first mention */
    int order(String workload) {
        return order.computeIfAbsent(workload, k -> order.size());
    }

    int orderOf(String workload) {
        return order.getOrDefault(workload, Integer.MAX_VALUE);
    }

    static String key(String target, String workload, int threads) {
        return target + "|" + workload + "|" + threads;
    }

    /** @return the median rate of a row of this run, if it ran */
    Double rate(String target, String workload, int threads) {
        return rates.get(key(target, workload, threads));
    }

    /** @return a rate by its {@link #key} */
    Double rateKey(String key) {
        return rates.get(key);
    }

    Optional<Row> row(String db, String workload, int threads) {
        return rows.stream().filter(r -> r.target().equals(db) && r.workload().equals(workload)
                && r.threads() == threads).findFirst();
    }

    double cell(BenchTarget target, String workload, int threads, Measure measure) throws Exception {
        return cell(target, workload, threads, List.of(), "", measure);
    }

    /**
     * Runs and records one row, if {@code --only} selects it.
     *
     * @return its median rate, 0 if it did not run
     */
    double cell(BenchTarget target, String workload, int threads, List<Ratio> vs, String note, Measure measure)
            throws Exception {
        if (!want(workload)) {
            return 0;
        }
        order(workload);
        long retriesBefore = retries.getAsLong();
        Harness.Measurement m = measure.run();
        long retried = retries.getAsLong() - retriesBefore;
        String fullNote = note;
        if (m.idleOperations() > 0) {
            fullNote += (fullNote.isEmpty() ? "" : "; ") + m.idleOperations() + " operations found nothing";
        }
        if (retried > 0) {
            fullNote += (fullNote.isEmpty() ? "" : "; ") + retried + " transactions run again after a deadlock";
        }
        Row row = new Row(target.name(), workload, threads, m, vs, fullNote);
        rows.add(row);
        rates.put(key(target.name(), workload, threads), m.median());
        System.out.printf(Locale.ROOT, "   %-78s %2d thr %9.0f/s (%3.0f%%)  p50 %7s  p99 %7s  %s %s%n", workload, threads,
                m.median(), m.spreadPercent(), micros(m, m.p50Micros()), micros(m, m.p99Micros()), ratios(row),
                fullNote);
        return m.median();
    }

    /** Replaces the note of the last row. */
    void renoteLast(String note) {
        Row last = rows.remove(rows.size() - 1);
        rows.add(new Row(last.target(), last.workload(), last.threads(), last.m(), last.vs(), note));
    }

    /** Records one system's side-by-side cell, measured or not run. */
    void side(Side s) {
        sides.add(s);
        if (s.ran()) {
            Harness.Measurement m = s.m();
            System.out.printf(Locale.ROOT, "   %-50s %-16s %2d thr %9.0f/s (%3.0f%%)  p50 %9s  p99 %9s  %s%n", s.cell(),
                    s.system(), s.threads(), m.median(), m.spreadPercent(), micros(m, m.p50Micros()),
                    micros(m, m.p99Micros()), s.note());
        } else {
            System.out.printf(Locale.ROOT, "   %-50s %-16s %2d thr not run: %s%n", s.cell(), s.system(), s.threads(),
                    s.note());
        }
    }

    static String micros(Harness.Measurement m, double value) {
        return m.hasLatency() ? String.format(Locale.ROOT, "%,.0f", value) : "n/a";
    }

    static String ratios(Row r) {
        StringBuilder b = new StringBuilder();
        for (Ratio ratio : r.vs()) {
            if (ratio.rate() > 0) {
                b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2fx %s",
                        r.m().median() / ratio.rate(), ratio.name()));
            }
        }
        return b.toString();
    }
}
