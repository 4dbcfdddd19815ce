package dev.rowqueue;

import java.time.Duration;
import java.util.List;

/**
 * What a {@link Worker} does, for metrics and logs, without wrapping the handler. Every method has an empty default;
 * methods are called on the worker's threads and must return quickly; an exception thrown here is logged and
 * ignored.
 */
public interface WorkerListener {

    /** @param jobs jobs just claimed (started at once or prefetched) */
    default void claimed(List<Job> jobs) {
    }

    /**
     * @param job     a job whose handler starts
     * @param waiting how long since the job was enqueued (its due time for delayed jobs is not known here)
     */
    default void started(Job job, Duration waiting) {
    }

    /**
     * @param job     a job whose handler returned (its ack is sent with the worker's next claim)
     * @param running how long the handler ran
     */
    default void succeeded(Job job, Duration running) {
    }

    /**
     * @param job     a job whose handler threw; it was nacked and will be retried
     * @param error   what the handler threw
     * @param running how long the handler ran
     */
    default void failed(Job job, Throwable error, Duration running) {
    }

    /**
     * @param job   a job whose handler threw on its last attempt; it is now a dead letter
     * @param error what the handler threw
     */
    default void dead(Job job, Throwable error) {
    }

    /**
     * Called once after every {@link #started}, on the same thread, when the job's handler has returned or thrown and
     * the worker has settled the job: after {@link #succeeded}, {@link #failed} or {@link #dead} when one of them is
     * called, and also when none is (the handler settled the job itself through {@link JobContext#release()} or
     * {@link JobContext#retryAfter}, the lease was lost, the worker's close interrupted the handler, or the nack
     * failed). So {@code started} minus {@code finished} is how many handlers run.
     *
     * @param job     a job whose handler is done
     * @param running how long the handler ran
     */
    default void finished(Job job, Duration running) {
    }

    /**
     * Called once per lost lease, when the worker finds it lost: a heartbeat found the job leased by another consumer,
     * acked or dead; the lease's known end ({@link JobContext#leaseUntil()}) passed without a successful extension;
     * or an ack came too late. Another consumer may run the job. Never called for a job that ran once and was acked.
     *
     * @param job a job whose lease this worker lost
     */
    default void leaseLost(Job job) {
    }

    /** Called when a claim found nothing to do and the worker starts waiting for jobs. */
    default void idle() {
    }

    /**
     * @param error       a failure to reach or use the database (claims, acks, heartbeats)
     * @param consecutive how many failures in a row, 1 for the first of an outage
     */
    default void databaseError(RuntimeException error, int consecutive) {
    }

    /**
     * Called when a claim works again after {@link #databaseError} failures: the outage, or the refusal of a
     * {@link StatementRefusedException}, is over.
     *
     * @param failures how many claims failed in a row before this one
     */
    default void databaseRecovered(int failures) {
    }

    /** @param jobs how many running jobs one heartbeat extended (one statement for all of them) */
    default void heartbeat(int jobs) {
    }
}
