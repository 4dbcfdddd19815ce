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

    /**
     * Told when each round's timing starts and ends (after the untimed {@link Hooks#beforeRound}), e.g. to read the
     * processes' CPU time over the timed rounds only, not over the fills between them.
     */
    interface RoundListener {
        /** @param timed whether the round is timed */
        void started(boolean timed);

        /**
         * @param timed whether the round was timed
         * @param units the units of work it did
         */
        void ended(boolean timed, long units);
    }

    private static final RoundListener SILENT = new RoundListener() {
        @Override
        public void started(boolean timed) {
        }

        @Override
        public void ended(boolean timed, long units) {
        }
    };

    /** The listener of the cell that runs now (cells run one at a time). */
    private static volatile RoundListener listener = SILENT;

    /**
     * @param l told of every round until the returned handle is closed
     * @return closes the subscription
     */
    static AutoCloseable listen(RoundListener l) {
        listener = l;
        return () -> listener = SILENT;
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
        listener.started(false);
        long[][] warm = run(threads, warmup, op, null);
        listener.ended(false, units(warm));
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
                listener.started(true);
                tallies = run(threads, iteration, op, samples);
                listener.ended(true, units(tallies));
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
     * Waits (untimed, from a {@link Hooks#beforeRound}) until a consumer just started has completed a job, at most
     * 30 s: a peer whose first fetch comes a poll interval after its start is timed from then on.
     *
     * @param done its completed jobs
     * @throws InterruptedException if interrupted
     */
    static void awaitFirst(java.util.function.LongSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (done.getAsLong() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
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
        double last = watch(work, warmup, false);
        double[] rates = new double[profile.iterations()];
        for (int i = 0; i < rates.length; i++) {
            work.beforeRound(true, last, iteration);
            rates[i] = watch(work, iteration, true);
            last = rates[i];
        }
        long[] custom = work.latencies();
        return summarize(rates, custom == null ? new long[0] : custom.clone(), 0, 0, custom != null);
    }

    private static double watch(Observed work, long nanos, boolean timed) throws InterruptedException {
        long before = work.completed();
        listener.started(timed);
        long t0 = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(nanos);
        long after = work.completed();
        listener.ended(timed, after - before);
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
