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
 * median throughput with its spread, and latency percentiles of the timed iterations.
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

    /** What one cell of the table measured. */
    record Measurement(double median, double min, double max, double p50Micros, double p99Micros, long operations,
                       long idleOperations) {
        double spreadPercent() {
            return median == 0 ? 0 : (max - min) / median * 100;
        }
    }

    private static final int SAMPLES_PER_THREAD = 200_000;

    private Harness() {
    }

    static Measurement measure(Profile profile, int threads, Operation op) throws Exception {
        run(threads, profile.warmup().toNanos(), op, null);
        double[] rates = new double[profile.iterations()];
        List<long[]> latencies = new ArrayList<>();
        long total = 0;
        long idle = 0;
        for (int i = 0; i < rates.length; i++) {
            long[][] samples = new long[threads][];
            long[][] tallies = run(threads, profile.iteration().toNanos(), op, samples);
            long units = 0;
            for (int t = 0; t < threads; t++) {
                units += tallies[t][1];
                idle += tallies[t][2];
                total += tallies[t][0];
                latencies.add(Arrays.copyOf(samples[t], (int) Math.min(tallies[t][0], SAMPLES_PER_THREAD)));
            }
            rates[i] = units / (profile.iteration().toNanos() / 1e9);
        }
        double[] sorted = rates.clone();
        Arrays.sort(sorted);
        long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Measurement(median(sorted), sorted[0], sorted[sorted.length - 1], percentile(all, 0.50) / 1e3,
                percentile(all, 0.99) / 1e3, total, idle);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double percentile(long[] sorted, double p) {
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
