package dev.rowqueue;

import java.time.Instant;
import java.util.Objects;

/**
 * A job as a consumer received it.
 *
 * @param id         the job id, unique within its queue
 * @param payload    the enqueued text
 * @param priority   the enqueued priority
 * @param failures   failed attempts before this delivery (nacks and leases that ended without an ack): 0 on the
 *                   first delivery; {@link JobContext#attempt()} is this plus 1
 * @param enqueuedAt when it was enqueued
 * @param leaseUntil when this consumer's lease ends; {@code null} on a dead letter
 * @param lastError  the error text of the last nack, or {@code null}
 * @param leaseToken identifies this delivery; acks, nacks and releases must match it. Opaque.
 * @param key        the job's key ({@link Enqueue#withKey(String)}), or {@code null}
 */
public record Job(long id, String payload, int priority, int failures, Instant enqueuedAt, Instant leaseUntil,
                  String lastError, long leaseToken, String key) {
    /** Validates the components. */
    public Job {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(enqueuedAt, "enqueuedAt");
    }

    /**
     * A job without a key.
     *
     * @param id         the job id
     * @param payload    the enqueued text
     * @param priority   the enqueued priority
     * @param failures   failed attempts before this delivery
     * @param enqueuedAt when it was enqueued
     * @param leaseUntil when the lease ends, or {@code null}
     * @param lastError  the last error, or {@code null}
     * @param leaseToken the lease token
     */
    public Job(long id, String payload, int priority, int failures, Instant enqueuedAt, Instant leaseUntil,
               String lastError, long leaseToken) {
        this(id, payload, priority, failures, enqueuedAt, leaseUntil, lastError, leaseToken, null);
    }
}
