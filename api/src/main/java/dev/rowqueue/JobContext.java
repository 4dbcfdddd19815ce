package dev.rowqueue;

import java.time.Duration;
import java.time.Instant;

/**
 * A job as its {@link JobHandler} sees it: the job, its attempt, its lease (extended by the worker's heartbeats
 * while the handler runs), and ways to settle it other than returning or throwing.
 */
public interface JobContext {

    /** @return the job as it was claimed */
    Job job();

    /** @return the job's id */
    default long id() {
        return job().id();
    }

    /** @return the job's payload */
    default String payload() {
        return job().payload();
    }

    /** @return the job's key ({@link Enqueue#withKey(String)}), or {@code null} */
    default String key() {
        return job().key();
    }

    /**
     * @return which attempt this is: 1 for the first delivery, raised by every nack and by every lease that ended
     *         without an ack; always {@link Job#failures()} + 1
     */
    default int attempt() {
        return job().failures() + 1;
    }

    /** @return when the job's lease ends unless a heartbeat extends it again */
    Instant leaseUntil();

    /**
     * @return whether the worker learned that the lease was lost (a heartbeat found the job leased by another
     *         consumer or gone, after a pause longer than the lease); the job may then run elsewhere, and whatever
     *         this handler does to it changes nothing
     */
    boolean leaseLost();

    /**
     * Gives the job back at once, without counting an attempt; returning or throwing afterwards changes nothing.
     *
     * @return whether the job was still this worker's to give back
     */
    boolean release();

    /**
     * Nacks the job with a delay of the handler's choosing instead of the retry policy's; counts an attempt (the job
     * is dead when attempts are exhausted). Returning or throwing afterwards changes nothing.
     *
     * @param delay  when the job is due again
     * @param reason the error text stored with the job, or {@code null}
     * @return whether the job was still this worker's
     */
    boolean retryAfter(Duration delay, String reason);
}
