package dev.rowqueue;

import java.time.Duration;

/**
 * How an operation that runs in its own transaction is retried after a transient failure (deadlock, serialization
 * failure, lock wait timeout, a connection lost before commit). Backoff is exponential with full jitter: the n-th
 * retry sleeps a random time up to {@code min(maxBackoff, initialBackoff * 2^(n-1))}.
 *
 * @param maxAttempts    total tries including the first, at least 1
 * @param initialBackoff the cap of the first sleep, zero or more
 * @param maxBackoff     the largest cap, at least {@code initialBackoff}
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /**
     * Validates the policy.
     *
     * @throws IllegalArgumentException for maxAttempts below 1 or negative or inverted backoffs
     */
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        WorkQueueOptions.requireNotNegative(initialBackoff, "initialBackoff");
        WorkQueueOptions.requireNotNegative(maxBackoff, "maxBackoff");
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below initialBackoff " + initialBackoff);
        }
    }

    /** @return 8 attempts, sleeping up to 5 ms, then 10, 20, ... at most 500 ms */
    public static RetryPolicy defaults() {
        return new RetryPolicy(8, Duration.ofMillis(5), Duration.ofMillis(500));
    }

    /** @return a single attempt: transient failures surface at once */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
    }

    /**
     * @param retry the retry number, from 1
     * @return the largest sleep before that retry
     */
    public Duration backoffCap(int retry) {
        int doublings = Math.max(0, Math.min(retry - 1, 30));
        Duration d = initialBackoff.multipliedBy(1L << doublings);
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }
}
