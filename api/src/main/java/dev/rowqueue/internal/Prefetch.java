package dev.rowqueue.internal;

import dev.rowqueue.WorkerOptions;

import java.util.concurrent.TimeUnit;

/**
 * How far a worker claims ahead of its threads: the fixed prefetch, or one sized by the moving average of handler
 * run times, and when a claim waits for a fuller batch (the moving average of claim round trips).
 */
final class Prefetch {
    private final int threads;
    private final WorkerOptions options;
    private final long pollNanos;
    /** Moving average of handler run times, or -1 before the first; sizes an adaptive prefetch. */
    private volatile long averageRunNanos = -1;
    /** Moving average of the dispatcher's claim round trips, or -1 before the first; dispatcher thread only. */
    private long averageClaimNanos = -1;
    /** When the dispatcher last claimed, or began to put a claim off ({@link #overlaps}); dispatcher thread only. */
    private long deferredSince = System.nanoTime();

    /**
     * @param options the worker's options (threads, prefetch, prefetch window)
     * @param pollMs  the longest a claim is put off
     */
    Prefetch(WorkerOptions options, long pollMs) {
        this.threads = options.threads();
        this.options = options;
        this.pollNanos = TimeUnit.MILLISECONDS.toNanos(pollMs);
    }

    /**
     * How many jobs to hold ahead now: the fixed prefetch, or with a window as many as the threads are expected to
     * take within it at the moving average of handler times (none before a job has finished).
     *
     * @return the number of jobs to hold beyond one per thread
     */
    int now() {
        int cap = options.prefetch();
        if (cap == 0 || options.prefetchWindow() == null) {
            return cap;
        }
        long avg = averageRunNanos;
        if (avg < 0) {
            return 0;
        }
        double fit = (double) threads * options.prefetchWindow().toNanos() / Math.max(avg, 1);
        return (int) Math.min(cap, fit);
    }

    /**
     * Whether to put a claim off: every thread has a job and what they hold ends before a claim could return, so
     * claiming with the next finished job gets a fuller batch than claiming now for the one free prefetch slot; never
     * for longer than the poll interval. Dispatcher thread only.
     *
     * @param want how many jobs a claim now would ask for
     * @param held how many jobs the worker holds (running and buffered)
     * @return whether to wait
     */
    boolean defer(int want, int held) {
        return want > 0 && held >= threads && !overlaps(held) && System.nanoTime() - deferredSince < pollNanos;
    }

    /** Notes that the dispatcher goes ahead (claims, or acks on its own); dispatcher thread only. */
    void proceeding() {
        deferredSince = System.nanoTime();
    }

    /**
     * Adds a claim's round trip to its moving average; dispatcher thread only.
     *
     * @param nanos how long it took
     */
    void claimTook(long nanos) {
        averageClaimNanos = averageClaimNanos < 0 ? nanos : averageClaimNanos + (nanos - averageClaimNanos) / 8;
    }

    /**
     * Adds a handler's run time to its moving average; any handler thread.
     *
     * @param nanos how long it ran
     */
    void ran(long nanos) {
        long avg = averageRunNanos;
        averageRunNanos = avg < 0 ? nanos : avg + (nanos - avg) / 8; // racy on purpose: an estimate
    }

    /**
     * Whether a claim sent now would overlap work: the {@code held} jobs (running and buffered) are expected to keep
     * the threads busy for at least half a claim's round trip, at the moving averages of both. If not, the threads
     * run out of work before the claim returns anyway, and waiting for them to finish claims a fuller batch (a no-op
     * handler on one thread: two jobs a round trip instead of one).
     */
    private boolean overlaps(int held) {
        long run = averageRunNanos;
        long claim = averageClaimNanos;
        if (run < 0 || claim < 0) {
            return true;
        }
        return (double) held * run / threads >= claim / 2.0;
    }
}
