package dev.rowqueue.spi;

/**
 * How a claim treats job keys ({@code WorkQueueOptions.maxLeasedPerKey} and {@code fairClaims}) and how many jobs it
 * may start per window ({@code WorkQueueOptions.rateLimit}).
 *
 * @param maxLeasedPerKey how many jobs of one key may be leased at once; 0 for no limit
 * @param fair            whether the claim takes jobs by round ({@code key_seq}) instead of priority, due time, id
 * @param rateLimit       how many jobs the queue's claims may start in any window of {@code rateWindowMs}, across
 *                        every consumer and node; 0 for no limit
 * @param rateWindowMs    the rate limit's window in milliseconds; 0 without a rate limit
 */
public record ClaimRule(int maxLeasedPerKey, boolean fair, int rateLimit, long rateWindowMs) {

    /** A claim that ignores keys. */
    public static final ClaimRule PLAIN = new ClaimRule(0, false);

    /** The most jobs a rate limit may allow per window: its ring holds one row per job. */
    public static final int MAX_RATE_LIMIT = 100_000;

    /** Validates. */
    public ClaimRule {
        if (maxLeasedPerKey < 0) {
            throw new IllegalArgumentException("maxLeasedPerKey must not be negative, got " + maxLeasedPerKey);
        }
        if (rateLimit < 0 || rateLimit > MAX_RATE_LIMIT) {
            throw new IllegalArgumentException("a rate limit must be between 1 and " + MAX_RATE_LIMIT
                    + " jobs per window, or 0 for none, got " + rateLimit);
        }
        if (rateLimit > 0 ? rateWindowMs <= 0 : rateWindowMs != 0) {
            throw new IllegalArgumentException("a rate limit needs a positive window, and no limit none; got "
                    + rateLimit + " per " + rateWindowMs + " ms");
        }
    }

    /**
     * A rule without a rate limit.
     *
     * @param maxLeasedPerKey how many jobs of one key may be leased at once; 0 for no limit
     * @param fair            whether the claim takes jobs by round
     */
    public ClaimRule(int maxLeasedPerKey, boolean fair) {
        this(maxLeasedPerKey, fair, 0, 0);
    }

    /** @return whether the claim ignores keys (then the store's plain claim runs, under the rate limit if any) */
    public boolean plain() {
        return maxLeasedPerKey == 0 && !fair;
    }

    /**
     * @return whether the claim has a per-key limit: it then takes the queue's claim gate first
     *         ({@link WorkTables#CLAIM_GATE}), so that the counts of leased jobs it reads stay true until it commits
     */
    public boolean limited() {
        return maxLeasedPerKey > 0;
    }

    /**
     * @return whether the claim has a rate limit: it then locks the queue's rate row first
     *         ({@link WorkTables#RATE_HEAD}), reads the start times of the jobs it may replace in the window's ring, and
     *         claims only as many jobs as have a start time a whole window old
     */
    public boolean rateLimited() {
        return rateLimit > 0;
    }

    /** @return this rule without its rate limit: the claim that runs under the limit */
    public ClaimRule withoutRate() {
        return rateLimited() ? new ClaimRule(maxLeasedPerKey, fair) : this;
    }
}
