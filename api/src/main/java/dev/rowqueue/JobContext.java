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

    /**
     * @return when the job's lease is known to end unless a heartbeat extends it again: the time the claim or the
     *         last successful extension was <em>sent</em>, plus the queue's lease, less the worker's
     *         {@link WorkerOptions#leaseMargin() lease margin}. The database's lease ends no earlier (it ran the
     *         statement after it was sent), so until this instant no other consumer can claim the job, as long as the
     *         database's clock does not run ahead of this node's by more than the margin during one lease
     */
    Instant leaseUntil();

    /**
     * What a handler may rely on: while this returns {@code false}, the worker holds the job's lease (up to the
     * clock margin of {@link #leaseUntil()}). It becomes {@code true}, and stays so, as soon as the worker finds the
     * lease lost: a heartbeat found the job leased by another consumer, acked or dead, or the known end of the lease
     * passed without a successful extension (the database unreachable or too slow, a pause longer than the lease).
     * At that moment {@link WorkerListener#leaseLost} is called once for the job and, unless
     * {@link WorkerOptions#interruptOnLeaseLoss()} is off, the handler's thread is interrupted. From then on the job
     * may run elsewhere, and whatever this handler does to it (return, throw, release, retry) changes nothing: it is
     * not acked, and runs again after the lease if no one else took it. A handler with effects outside the database
     * checks this before each effect it must not repeat; the check cannot close the window between the check and
     * the effect, which the margin and a heartbeat of a third of the lease make short.
     *
     * @return whether the worker learned that the lease was lost
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
