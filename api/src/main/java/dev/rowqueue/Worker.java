package dev.rowqueue;

import java.time.Duration;

/**
 * Runs a {@link JobHandler} on the jobs of one work queue, on a pool of handler threads: the runtime around
 * {@link WorkQueue#claim}, {@link WorkQueue#ackAndClaim} and {@link WorkQueue#extendLease}.
 *
 * <ul>
 *   <li><b>Claims for the pool.</b> A claim asks for as many jobs as there are free handler threads, plus at most
 *       {@link WorkerOptions#prefetch()} more (by default one per thread, and only jobs expected to start within
 *       {@link WorkerOptions#prefetchWindow()}); while every thread has a job that ends before a claim could
 *       return, the claim waits for the next finished job to take a fuller batch (at most one poll interval). The
 *       acks of finished jobs ride on the next claim
 *       ({@code ackAndClaim}, one round trip on PostgreSQL and MariaDB). An idle worker waits with the dialect's
 *       wake-up (LISTEN/NOTIFY on PostgreSQL) or polls with backoff up to the instance's poll interval.</li>
 *   <li><b>Heartbeats.</b> While handlers run, their leases are extended every
 *       {@link WorkerOptions#heartbeat()} (a third of the lease by default), all of them in one statement, so long
 *       work is not claimed by another consumer while this worker lives. A lease lost anyway (a pause longer than
 *       the lease) is reported to the listener and the handler ({@link JobContext#leaseLost()}).</li>
 *   <li><b>Failures.</b> A handler that throws nacks its job with the queue's retry policy and the exception's text.
 *       A database that fails is retried with capped exponential backoff and logged once per outage.</li>
 *   <li><b>Shutdown.</b> {@link #close(Duration)} stops claiming, gives prefetched jobs that never started back at
 *       once (no attempt counted), waits for running handlers up to the deadline, then interrupts them. A job whose
 *       handler was interrupted by close and then throws is released (no attempt counted); one that returns is
 *       acked. A JVM that dies loses nothing: its jobs come back when their leases end.</li>
 * </ul>
 *
 * <p>Create one with {@link WorkQueue#worker}, then {@link #start()} it. Thread-safe.
 */
public interface Worker extends AutoCloseable {

    /**
     * Starts claiming and running jobs.
     *
     * @return this worker
     * @throws IllegalStateException if it was started or closed before
     */
    Worker start();

    /** Stops claiming; running handlers finish and are acked. Prefetched jobs are given back. */
    void pause();

    /** Claims again after {@link #pause()}. */
    void resume();

    /** @return whether the worker is paused */
    boolean isPaused();

    /** @return how many handlers are running now */
    int running();

    /**
     * A permanent failure: the database refuses the statement the worker claims with (a syntax error or a missing
     * privilege), so the worker cannot work until the database changes. Health checks report it as DOWN. The worker
     * logged it once at ERROR, tries again at its longest backoff, and clears it when a claim runs again (a DBA
     * granted the privilege).
     *
     * @return the refusal while it lasts, or empty
     */
    default java.util.Optional<StatementRefusedException> refused() {
        return java.util.Optional.empty();
    }

    /**
     * Stops the worker: no more claims, prefetched jobs given back, running handlers awaited up to {@code drain},
     * then interrupted, acks and nacks flushed.
     *
     * @param drain how long to wait for running handlers before interrupting them
     * @return whether every handler finished within {@code drain}
     */
    boolean close(Duration drain);

    /** {@link #close(Duration)} with {@link WorkerOptions#drainTimeout()}. */
    @Override
    void close();
}
