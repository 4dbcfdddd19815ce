package dev.rowqueue;

import java.time.Instant;
import java.util.Objects;

/**
 * A job as an operator sees it ({@link WorkQueue#job(long)}, {@link WorkQueue#jobs(JobQuery)}): read, not claimed.
 *
 * @param id         the job id
 * @param state      its state when it was read (by the database's clock)
 * @param payload    the enqueued text
 * @param priority   the enqueued priority
 * @param failures   failed attempts so far (nacks and leases that ended without an ack), as {@link Job#failures()}
 * @param enqueuedAt when it was enqueued
 * @param dueAt      when it is (or was) due: for a ready or scheduled job the time it may be claimed from, for a dead
 *                   one the time of its last failure's retry; {@code null} for a leased job (see {@code leaseUntil})
 * @param leaseToken the lease token of the consumer that holds it: the holder's claim, as {@link Job#leaseToken()}
 *                   shows it to that consumer; 0 if it is not leased
 * @param leaseUntil when the lease ends; {@code null} unless it is leased
 * @param lastError  the error text of the last nack, or {@code null}
 * @param key        its key ({@link Enqueue#withKey(String)}), or {@code null}
 * @param uniqueKey  its unique key while it is live ({@link Enqueue#unique()}), or {@code null}
 */
public record JobInfo(long id, JobState state, String payload, int priority, int failures, Instant enqueuedAt,
                      Instant dueAt, long leaseToken, Instant leaseUntil, String lastError, String key,
                      String uniqueKey) {
    /** Validates the components. */
    public JobInfo {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(enqueuedAt, "enqueuedAt");
    }
}
