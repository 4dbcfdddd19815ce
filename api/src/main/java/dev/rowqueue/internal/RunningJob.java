package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.JobContext;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/** A job a worker handed to a handler thread, as its handler sees it. */
final class RunningJob implements JobContext {
    private final DefaultWorkQueue queue;
    final Job job;
    final AtomicBoolean settled = new AtomicBoolean();
    /** Taken by the handler thread that runs the job, or by close for a job no thread took. */
    final AtomicBoolean begun = new AtomicBoolean();
    volatile Instant leaseUntil;
    volatile boolean lost;
    volatile boolean interruptedByClose;
    volatile Thread thread;
    volatile Future<?> future;

    /**
     * @param queue the queue the job came from
     * @param job   the job
     */
    RunningJob(DefaultWorkQueue queue, Job job) {
        this.queue = queue;
        this.job = job;
        this.leaseUntil = job.leaseUntil();
    }

    /** @return whether heartbeats still extend its lease: neither settled by its handler nor lost */
    boolean beating() {
        return !lost && !settled.get();
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public Instant leaseUntil() {
        return leaseUntil;
    }

    @Override
    public boolean leaseLost() {
        return lost;
    }

    @Override
    public boolean release() {
        return settled.compareAndSet(false, true) && !lost && queue.release(job);
    }

    @Override
    public boolean retryAfter(Duration delay, String reason) {
        return settled.compareAndSet(false, true) && !lost && queue.nack(job, delay, reason);
    }
}
