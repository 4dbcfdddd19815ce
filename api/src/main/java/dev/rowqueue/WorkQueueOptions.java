package dev.rowqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a work queue handle. They are client-side: two handles on one queue may use different leases.
 *
 * <pre>{@code
 * rq.workQueue("outgoing_mail", WorkQueueOptions.defaults().maxAttempts(3).leaseDuration(Duration.ofMinutes(2)));
 * }</pre>
 *
 * @param maxAttempts   how many failed attempts make a job dead (a nack, or a lease that ended without ack)
 * @param leaseDuration how long a claimed job stays with its consumer
 * @param retryBackoff  delay before the first retry of {@link WorkQueue#nack(Job)}; doubled on each further attempt
 * @param maxRetryDelay the longest delay {@link WorkQueue#nack(Job)} uses
 */
public record WorkQueueOptions(int maxAttempts, Duration leaseDuration, Duration retryBackoff,
                               Duration maxRetryDelay) {

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException for maxAttempts below 1, a non-positive lease, or a negative delay
     */
    public WorkQueueOptions {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        requirePositive(leaseDuration, "leaseDuration");
        requireNotNegative(retryBackoff, "retryBackoff");
        requireNotNegative(maxRetryDelay, "maxRetryDelay");
    }

    /**
     * 5 attempts, 60 s leases, retries after 10 s doubling up to 1 h.
     *
     * @return the defaults
     */
    public static WorkQueueOptions defaults() {
        return new WorkQueueOptions(5, Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofHours(1));
    }

    /**
     * @param attempts at least 1
     * @return a copy with this many attempts
     */
    public WorkQueueOptions maxAttempts(int attempts) {
        return new WorkQueueOptions(attempts, leaseDuration, retryBackoff, maxRetryDelay);
    }

    /**
     * @param lease a positive duration
     * @return a copy with this lease
     */
    public WorkQueueOptions leaseDuration(Duration lease) {
        return new WorkQueueOptions(maxAttempts, lease, retryBackoff, maxRetryDelay);
    }

    /**
     * @param first delay before the first retry, zero or more
     * @param max   the longest delay, zero or more
     * @return a copy with this backoff
     */
    public WorkQueueOptions retryBackoff(Duration first, Duration max) {
        return new WorkQueueOptions(maxAttempts, leaseDuration, first, max);
    }

    /**
     * The delay {@link WorkQueue#nack(Job)} uses after a job's {@code failures}-th failure.
     *
     * @param failures failed attempts so far, including this one (at least 1)
     * @return {@code retryBackoff * 2^(failures-1)}, at most {@code maxRetryDelay}
     */
    public Duration retryDelay(int failures) {
        int doublings = Math.max(0, Math.min(failures - 1, 40));
        try {
            Duration d = retryBackoff.multipliedBy(1L << doublings);
            return d.compareTo(maxRetryDelay) > 0 ? maxRetryDelay : d;
        } catch (ArithmeticException overflow) {
            return maxRetryDelay;
        }
    }

    static void requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
    }

    static void requireNotNegative(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + d);
        }
    }
}
