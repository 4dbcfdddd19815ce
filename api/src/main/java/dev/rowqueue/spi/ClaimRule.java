package dev.rowqueue.spi;

/**
 * How a claim treats job keys ({@code WorkQueueOptions.maxLeasedPerKey} and {@code fairClaims}).
 *
 * @param maxLeasedPerKey how many jobs of one key may be leased at once; 0 for no limit
 * @param fair            whether the claim takes jobs by round ({@code key_seq}) instead of priority, due time, id
 */
public record ClaimRule(int maxLeasedPerKey, boolean fair) {

    /** A claim that ignores keys. */
    public static final ClaimRule PLAIN = new ClaimRule(0, false);

    /** Validates. */
    public ClaimRule {
        if (maxLeasedPerKey < 0) {
            throw new IllegalArgumentException("maxLeasedPerKey must not be negative, got " + maxLeasedPerKey);
        }
    }

    /** @return whether the claim ignores keys (then the store's plain claim runs) */
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
}
