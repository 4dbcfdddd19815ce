package dev.rowqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a work queue handle. They are client-side: two handles on one queue may use different leases.
 *
 * <pre>{@code
 * rq.workQueue("outgoing_mail", WorkQueueOptions.defaults().withMaxAttempts(3).withLeaseDuration(Duration.ofMinutes(2)));
 * }</pre>
 *
 * @param maxAttempts   how many failed attempts make a job dead (a nack, or a lease that ended without ack)
 * @param leaseDuration how long a claimed job stays with its consumer
 * @param retryBackoff  delay before the first retry of {@link WorkQueue#nack(Job)}; doubled on each further attempt
 * @param maxRetryDelay the longest delay {@link WorkQueue#nack(Job)} uses
 * @param maxLeasedPerKey how many jobs of one {@linkplain Job#key() key} may be leased at once, across every consumer
 *                        and node; 0 for no limit (see {@link #withMaxLeasedPerKey(int)})
 * @param fairClaims      whether claims take turns between keys instead of following priority, due time and id
 *                        (see {@link #withFairClaims(boolean)})
 * @param rateLimit       how many jobs claims may start in any window of {@code rateWindow}, across every consumer
 *                        and node; 0 for no limit (see {@link #withRateLimit(int, Duration)})
 * @param rateWindow      the rate limit's window; {@link Duration#ZERO} without a limit
 */
public record WorkQueueOptions(int maxAttempts, Duration leaseDuration, Duration retryBackoff,
                               Duration maxRetryDelay, int maxLeasedPerKey, boolean fairClaims, int rateLimit,
                               Duration rateWindow) {

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException for maxAttempts below 1, a non-positive lease, a negative delay, a negative
     *                                  maxLeasedPerKey, or a rate limit outside 1 to 100,000 per positive window of at
     *                                  most a day (0 per {@link Duration#ZERO} for none)
     */
    public WorkQueueOptions {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        requirePositive(leaseDuration, "leaseDuration");
        requireNotNegative(retryBackoff, "retryBackoff");
        requireNotNegative(maxRetryDelay, "maxRetryDelay");
        if (maxLeasedPerKey < 0) {
            throw new IllegalArgumentException("maxLeasedPerKey must be at least 1, or 0 for no limit, got "
                    + maxLeasedPerKey);
        }
        Objects.requireNonNull(rateWindow, "rateWindow");
        if (rateLimit < 0 || rateLimit > MAX_RATE_LIMIT) {
            throw new IllegalArgumentException("rateLimit must be 1 to " + MAX_RATE_LIMIT + " jobs per window, or 0 for"
                    + " no limit, got " + rateLimit);
        }
        if (rateLimit == 0 ? !rateWindow.isZero()
                : rateWindow.toMillis() < 1 || rateWindow.compareTo(MAX_RATE_WINDOW) > 0) {
            throw new IllegalArgumentException("a rate limit's window must be 1 ms to " + MAX_RATE_WINDOW
                    + " (and zero without a limit), got " + rateLimit + " per " + rateWindow);
        }
    }

    /** The most jobs a rate limit may let start per window ({@link #withRateLimit}). */
    public static final int MAX_RATE_LIMIT = 100_000;
    /** The longest window of a rate limit. */
    public static final Duration MAX_RATE_WINDOW = Duration.ofDays(1);

    /**
     * Options without a rate limit.
     *
     * @param maxAttempts     how many failed attempts make a job dead
     * @param leaseDuration   how long a claimed job stays with its consumer
     * @param retryBackoff    delay before the first retry
     * @param maxRetryDelay   the longest retry delay
     * @param maxLeasedPerKey how many jobs of one key may be leased at once; 0 for no limit
     * @param fairClaims      whether claims take turns between keys
     */
    public WorkQueueOptions(int maxAttempts, Duration leaseDuration, Duration retryBackoff, Duration maxRetryDelay,
                            int maxLeasedPerKey, boolean fairClaims) {
        this(maxAttempts, leaseDuration, retryBackoff, maxRetryDelay, maxLeasedPerKey, fairClaims, 0, Duration.ZERO);
    }

    /**
     * Options without a per-key limit and without fair claims.
     *
     * @param maxAttempts   how many failed attempts make a job dead
     * @param leaseDuration how long a claimed job stays with its consumer
     * @param retryBackoff  delay before the first retry
     * @param maxRetryDelay the longest retry delay
     */
    public WorkQueueOptions(int maxAttempts, Duration leaseDuration, Duration retryBackoff, Duration maxRetryDelay) {
        this(maxAttempts, leaseDuration, retryBackoff, maxRetryDelay, 0, false);
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
    public WorkQueueOptions withMaxAttempts(int attempts) {
        return new WorkQueueOptions(attempts, leaseDuration, retryBackoff, maxRetryDelay, maxLeasedPerKey, fairClaims,
                rateLimit, rateWindow);
    }

    /**
     * @param lease a positive duration
     * @return a copy with this lease
     */
    public WorkQueueOptions withLeaseDuration(Duration lease) {
        return new WorkQueueOptions(maxAttempts, lease, retryBackoff, maxRetryDelay, maxLeasedPerKey, fairClaims,
                rateLimit, rateWindow);
    }

    /**
     * @param first delay before the first retry, zero or more
     * @param max   the longest delay, zero or more
     * @return a copy with this backoff
     */
    public WorkQueueOptions withRetryBackoff(Duration first, Duration max) {
        return new WorkQueueOptions(maxAttempts, leaseDuration, first, max, maxLeasedPerKey, fairClaims,
                rateLimit, rateWindow);
    }

    /**
     * Limits how many jobs of one {@linkplain Enqueue#key(String) key} are leased at once: at no moment are more than
     * {@code n} jobs of one key leased, across every consumer and node that claims with this limit. The database
     * enforces it inside the claim (claims with a limit take turns on a lock row of the queue, then choose jobs with a
     * statement that counts each key's leased jobs), not the JVM. A job's lease ends with its ack, nack or release, or
     * when it runs out; a worker's heartbeats keep it.
     *
     * <p>Within one key, the due jobs are handed out in enqueue order, whatever their priority (a job whose lease ran
     * out, and a retried or revived job once it is due again, keep their place); across keys, by priority, due time
     * and id (or round-robin with {@link #withFairClaims(boolean)}). A job that is not due (delayed, or waiting for its
     * retry) does not hold its key back. With {@code n = 1} the jobs of one key run one at a time in enqueue order:
     * per-key FIFO, as ordered processing per customer needs. A batch claim takes at most {@code n} jobs of one key.
     *
     * <p>Every consumer of the queue must claim with the same limit: a handle without it claims as if there were none.
     * {@link WorkQueue#rotate} is refused on a handle with a limit. Jobs without a key are not limited. Costs and
     * guarantees per database: {@code docs/keyed-jobs.md}.
     *
     * @param n at least 1, or 0 for no limit (the default)
     * @return a copy with this limit
     */
    public WorkQueueOptions withMaxLeasedPerKey(int n) {
        return new WorkQueueOptions(maxAttempts, leaseDuration, retryBackoff, maxRetryDelay, n, fairClaims,
                rateLimit, rateWindow);
    }

    /**
     * Fair claims take jobs round-robin across {@linkplain Enqueue#key(String) keys} instead of strictly by priority,
     * due time and id, so a key with a large backlog does not delay keys with a few jobs. Each keyed job gets a round
     * when it is enqueued: one more than the newest live job of its key, and at least the round the queue's claims
     * have reached, so a new key joins the current round instead of jumping ahead of everyone. A fair claim takes due
     * jobs by round, then priority, then id. Jobs without a key are in round 0: fair claims take them first.
     *
     * <p>Fairness is an order, not a lock: fair claims run concurrently, skipping each other's rows. Combined with
     * {@link #withMaxLeasedPerKey(int)} the limit also holds.
     *
     * @param fair whether claims are fair
     * @return a copy with this setting
     */
    public WorkQueueOptions withFairClaims(boolean fair) {
        return new WorkQueueOptions(maxAttempts, leaseDuration, retryBackoff, maxRetryDelay, maxLeasedPerKey, fair,
                rateLimit, rateWindow);
    }

    /**
     * Limits how many jobs this queue's claims start: at most {@code jobs} in any window of {@code window} (a sliding
     * window, not calendar slots: never more than {@code jobs} leases began within any {@code window} of time), across
     * every consumer and node that claims with this limit, as in "call this API at most 50 times a second". The
     * database enforces it inside the claim: the queue's rate row in its cursors table ({@code rowqueue.rate}) is
     * locked first, and a ring of {@code jobs} rows keeps the start of each of the last {@code jobs} leases; a claim
     * takes only as many jobs as have a start a whole window old (or none yet) to replace, and writes the starts of
     * the jobs it leased, in the same transaction. Times are the database's clock (the application's on embedded
     * databases that bind it), so nodes need no synchronised clocks, except on a multi-primary cluster, where each
     * server's clock counts.
     *
     * <p>A claim the limit holds back returns fewer jobs, or none; a worker then polls as after any empty claim. A
     * limited job that is retried or released starts again under the limit. Every consumer of the queue must claim
     * with the same limit: a handle without it claims as if there were none. {@link WorkQueue#rotate} is refused on a
     * handle with a limit. Combines with {@link #withMaxLeasedPerKey(int)} and {@link #withFairClaims(boolean)}.
     * Guarantees and costs: {@code docs/workflows.md}.
     *
     * @param jobs   1 to {@value #MAX_RATE_LIMIT}, or 0 for no limit (the default)
     * @param window a positive window of at most a day, or {@link Duration#ZERO} with {@code jobs = 0}
     * @return a copy with this limit
     */
    public WorkQueueOptions withRateLimit(int jobs, Duration window) {
        return new WorkQueueOptions(maxAttempts, leaseDuration, retryBackoff, maxRetryDelay, maxLeasedPerKey,
                fairClaims, jobs, window);
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
