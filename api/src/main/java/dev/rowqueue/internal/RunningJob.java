package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.JobContext;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A job a worker holds, from its claim (prefetched, then handed to a handler thread) to its settlement, as its
 * handler sees it, with the end of its lease as this node knows it.
 */
final class RunningJob implements JobContext {
    private final WorkerQueue queue;
    final Job job;
    final AtomicBoolean settled = new AtomicBoolean();
    /** Taken by the handler thread that runs the job, or by close for a job no thread took. */
    final AtomicBoolean begun = new AtomicBoolean();
    private final AtomicBoolean lost = new AtomicBoolean();
    /**
     * When the lease is known to end, on {@link System#nanoTime()}: when the claim or the last successful extension
     * was sent, plus the lease, less the worker's margin.
     */
    private volatile long leaseEndNanos;
    volatile boolean interruptedByClose;
    /** The handler thread while the handler runs; set and cleared under this object's monitor. */
    private Thread thread;
    volatile Future<?> future;

    /**
     * @param queue         the queue the job came from
     * @param job           the job
     * @param leaseEndNanos when its lease is known to end, on {@link System#nanoTime()}
     */
    RunningJob(WorkerQueue queue, Job job, long leaseEndNanos) {
        this.queue = queue;
        this.job = job;
        this.leaseEndNanos = leaseEndNanos;
    }

    /** @return whether heartbeats still extend its lease: neither settled by its handler nor lost */
    boolean beating() {
        return !lost.get() && !settled.get();
    }

    /**
     * A successful extension: the lease is known to end at {@code endNanos}, unless it was known lost already.
     *
     * @param endNanos when the extension was sent, plus the lease, less the margin
     */
    void extended(long endNanos) {
        leaseEndNanos = Math.max(leaseEndNanos, endNanos);
    }

    /**
     * @param nowNanos {@link System#nanoTime()}
     * @return whether the known end of the lease has passed
     */
    boolean leaseEnded(long nowNanos) {
        return nowNanos - leaseEndNanos >= 0;
    }

    /** @return whether this call marked the lease lost (once; never for a job its handler settled) */
    synchronized boolean markLost() {
        if (settled.get() || lost.get()) {
            return false;
        }
        lost.set(true);
        return true;
    }

    /** @return whether this call settled the job as succeeded: it was neither settled nor lost */
    synchronized boolean settleSucceeded() {
        return !lost.get() && settled.compareAndSet(false, true);
    }

    /** @return whether the lease is known lost */
    boolean lost() {
        return lost.get();
    }

    /** Records the thread that runs the handler. */
    synchronized void running(Thread t) {
        thread = t;
    }

    /** Interrupts the handler thread if the handler still runs. */
    synchronized void interrupt() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public Instant leaseUntil() {
        return Instant.now().plusNanos(leaseEndNanos - System.nanoTime());
    }

    @Override
    public boolean leaseLost() {
        return lost.get();
    }

    @Override
    public boolean release() {
        return settled.compareAndSet(false, true) && !lost.get() && queue.release(job);
    }

    @Override
    public boolean retryAfter(Duration delay, String reason) {
        return settled.compareAndSet(false, true) && !lost.get() && queue.nack(job, delay, reason);
    }
}
