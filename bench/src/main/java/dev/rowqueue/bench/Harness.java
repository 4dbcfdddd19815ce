package dev.rowqueue.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one operation from many threads for a fixed time: a warm-up, then several timed iterations. Reports the
 * median throughput with its spread (min and max of the iterations), and latency percentiles of the timed iterations.
 *
 * <p>Two modes, one method each: {@link #measure} drives an operation from client threads of its own (rowqueue and
 * the baselines); {@link #observe} only watches a counter of work that something else does on its own threads (the
 * peer, db-scheduler, which runs its executions itself). Both take the same warm-up and iterations of the profile.
 */
final class Harness {

    /** One operation of a workload. */
    @FunctionalInterface
    interface Operation {
        /**
         * @param thread the client thread, from 0
         * @param n      this thread's operation count so far
         * @return how many units of work it did (jobs processed by a batch claim; 1 for most operations)
         * @throws Exception on failure: the measurement stops and reports it
         */
        long run(int thread, long n) throws Exception;
    }

    /** Optional hooks of a cell, all untimed. */
    interface Hooks {
        /**
         * Before the warm-up and before each timed iteration: refills a backlog, resets a recorder.
         *
         * @param timed     whether the round that follows is timed
         * @param lastRate  units per second of the previous round, 0 before the warm-up
         * @param roundNanos how long the next round runs
         * @throws Exception on failure
         */
        default void beforeRound(boolean timed, double lastRate, long roundNanos) throws Exception {
        }

        /**
         * After a timed round: whether it counts. A round that emptied a backlog measured the backlog, not the
         * work; it is run again (at most {@value #REPEATS} times), after {@link #beforeRound} refilled more.
         *
         * @return {@code false} to run the round again
         */
        default boolean accept() {
            return true;
        }

        /**
         * @return latency samples (nanoseconds) of the timed rounds that replace the per-operation timing (e.g. from
         *         enqueue to claim), or {@code null} to report the operation's own duration
         */
        default long[] latencies() {
            return null;
        }
    }

    /** Work done elsewhere, watched by {@link #observe}. */
    interface Observed extends Hooks {
        /** @return units of work completed so far (monotonic) */
        long completed();
    }

    /** No hooks. */
    static final Hooks NONE = new Hooks() {
    };

    /** What one cell of the table measured. */
    record Measurement(double median, double min, double max, double p50Micros, double p99Micros, long operations,
                       long idleOperations, boolean hasLatency) {
        double spreadPercent() {
            return median == 0 ? 0 : (max - min) / median * 100;
        }
    }

    private static final int SAMPLES_PER_THREAD = 200_000;
    /** How often a round that {@link Hooks#accept() was not accepted} is run again. */
    static final int REPEATS = 5;

    private Harness() {
    }

    static Measurement measure(Profile profile, int threads, Operation op) throws Exception {
        return measure(profile, threads, op, NONE);
    }

    static Measurement measure(Profile profile, int threads, Operation op, Hooks hooks) throws Exception {
        long warmup = profile.warmup().toNanos();
        long iteration = profile.iteration().toNanos();
        hooks.beforeRound(false, 0, warmup);
        long[][] warm = run(threads, warmup, op, null);
        double last = units(warm) / (warmup / 1e9);
        double[] rates = new double[profile.iterations()];
        List<long[]> latencies = new ArrayList<>();
        long total = 0;
        long idle = 0;
        for (int i = 0; i < rates.length; i++) {
            long[][] samples;
            long[][] tallies;
            int attempt = 0;
            do {
                hooks.beforeRound(true, last, iteration);
                samples = new long[threads][];
                tallies = run(threads, iteration, op, samples);
            } while (!hooks.accept() && ++attempt < REPEATS);
            for (int t = 0; t < threads; t++) {
                idle += tallies[t][2];
                total += tallies[t][0];
                latencies.add(Arrays.copyOf(samples[t], (int) Math.min(tallies[t][0], SAMPLES_PER_THREAD)));
            }
            rates[i] = units(tallies) / (iteration / 1e9);
            last = rates[i];
        }
        long[] custom = hooks.latencies();
        long[] all = custom != null ? custom.clone() : latencies.stream().flatMapToLong(Arrays::stream).toArray();
        return summarize(rates, all, total, idle, true);
    }

    /**
     * Runs an operation untimed, to warm up the JIT, the driver and the server before a target's first cell.
     *
     * @param threads client threads
     * @param nanos   how long
     * @param op      the operation
     * @throws Exception on failure
     */
    static void warm(int threads, long nanos, Operation op) throws Exception {
        run(threads, nanos, op, null);
    }

    /**
     * Watches work done by someone else's threads: the rate of {@link Observed#completed()} over each round.
     *
     * @param profile the profile
     * @param work    the work, already running or started by its first {@link Hooks#beforeRound}
     * @return the rates; latency only if the work records it
     * @throws Exception on failure
     */
    static Measurement observe(Profile profile, Observed work) throws Exception {
        long warmup = profile.warmup().toNanos();
        long iteration = profile.iteration().toNanos();
        work.beforeRound(false, 0, warmup);
        double last = watch(work, warmup);
        double[] rates = new double[profile.iterations()];
        for (int i = 0; i < rates.length; i++) {
            work.beforeRound(true, last, iteration);
            rates[i] = watch(work, iteration);
            last = rates[i];
        }
        long[] custom = work.latencies();
        return summarize(rates, custom == null ? new long[0] : custom.clone(), 0, 0, custom != null);
    }

    private static double watch(Observed work, long nanos) throws InterruptedException {
        long before = work.completed();
        long t0 = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(nanos);
        long after = work.completed();
        return (after - before) / ((System.nanoTime() - t0) / 1e9);
    }

    private static Measurement summarize(double[] rates, long[] latencies, long total, long idle, boolean hasLatency) {
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        Arrays.sort(latencies);
        return new Measurement(median(sorted), sorted[0], sorted[sorted.length - 1], percentile(latencies, 0.50) / 1e3,
                percentile(latencies, 0.99) / 1e3, total, idle, hasLatency && latencies.length > 0);
    }

    private static long units(long[][] tallies) {
        long units = 0;
        for (long[] t : tallies) {
            units += t[1];
        }
        return units;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /**
     * @param sorted samples in ascending order
     * @param p      a fraction, e.g. 0.99
     * @return the nearest-rank percentile, 0 without samples
     */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    /**
     * Runs the operation on {@code threads} threads for {@code nanos}; returns per thread its operations, units of
     * work and operations that did no work.
     */
    private static long[][] run(int threads, long nanos, Operation op, long[][] samples) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        long[][] counts = new long[threads][3];
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                if (samples != null) {
                    samples[t] = new long[SAMPLES_PER_THREAD];
                }
                futures.add(pool.submit(() -> {
                    start.await();
                    long n = 0;
                    long units = 0;
                    long idle = 0;
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        long done = op.run(thread, n);
                        if (samples != null && n < SAMPLES_PER_THREAD) {
                            samples[thread][(int) n] = System.nanoTime() - t0;
                        }
                        units += done;
                        idle += done == 0 ? 1 : 0;
                        n++;
                    }
                    counts[thread][0] = n;
                    counts[thread][1] = units;
                    counts[thread][2] = idle;
                    return null;
                }));
            }
            start.countDown();
            TimeUnit.NANOSECONDS.sleep(nanos);
            stop.set(true);
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
            return counts;
        } finally {
            pool.shutdownNow();
        }
    }
}
