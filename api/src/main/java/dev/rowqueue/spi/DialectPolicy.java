package dev.rowqueue.spi;

import dev.rowqueue.RetryPolicy;

import java.util.Objects;

/**
 * A dialect's answers to how the core runs on its database: how many claims run at once, how long payloads may be,
 * which isolation level the core enforces, how often it retries, and whether it reissues existing schema DDL.
 * {@link #DEFAULTS} are the portable answers; a dialect changes what its database needs with the {@code with...}
 * methods.
 *
 * @param claimConcurrency        how many claims of one work queue a {@code RowQueues} instance runs at once unless
 *                                the builder's {@code claimConcurrency} says otherwise; more claimers wait in the JVM,
 *                                and those waiting run together as one claim when a permit frees. A database whose
 *                                claims slow each other down when many run together (lock and latch waits at the head
 *                                of the claim index), or gain from fewer and larger claims, gives a bound. At least 1;
 *                                {@link Integer#MAX_VALUE} for no limit
 * @param maxPayloadLength        the longest payload the payload columns hold, in characters
 * @param enforceReadCommitted    whether the core must check, and if needed set, READ COMMITTED before each
 *                                multi-statement transaction on a connection of its own. The level a physical
 *                                connection is handed out with is read once and remembered. {@code false} if every
 *                                statement the dialect renders is correct at any isolation level at or above it
 *                                (higher levels then only cause serialization failures, which the core retries)
 * @param readCommittedStatements whether single statements in auto-commit mode must run at READ COMMITTED too: for a
 *                                database where a statement at a stricter level fails on rows a concurrent
 *                                transaction changed where at READ COMMITTED it would wait and see the new row. At a
 *                                stricter pool this costs two round trips per operation; at a READ COMMITTED pool
 *                                none
 * @param retryPolicy             the retry policy of a {@code RowQueues} whose builder was given none. A database
 *                                whose transactions lose conflicts far more often than a lock wait would (optimistic
 *                                replication, where writes to one hot row from several nodes abort at commit) asks for
 *                                more attempts
 * @param reissuesExistingSchema  whether the core issues the schema's DDL every time a queue is first opened in a
 *                                JVM, even when its tables exist. A database where DDL replicates to other servers and
 *                                can break them when several run it at once answers {@code false}: the core then first
 *                                checks that the tables exist and issues the DDL only for what is missing
 */
public record DialectPolicy(int claimConcurrency, int maxPayloadLength, boolean enforceReadCommitted,
                            boolean readCommittedStatements, RetryPolicy retryPolicy,
                            boolean reissuesExistingSchema) {

    /**
     * The portable answers: no claim limit, payloads of 4000 characters, READ COMMITTED enforced for transactions
     * only, {@link RetryPolicy#defaults()}, schema DDL reissued.
     */
    public static final DialectPolicy DEFAULTS = new DialectPolicy(Integer.MAX_VALUE, 4000, true, false,
            RetryPolicy.defaults(), true);

    /** Checks the answers. */
    public DialectPolicy {
        if (claimConcurrency < 1) {
            throw new IllegalArgumentException("claimConcurrency must be at least 1; got " + claimConcurrency);
        }
        if (maxPayloadLength < 1) {
            throw new IllegalArgumentException("maxPayloadLength must be at least 1; got " + maxPayloadLength);
        }
        Objects.requireNonNull(retryPolicy, "retryPolicy");
    }

    /**
     * As many claims at once as this JVM has processors, at least 2: a bound for {@link #claimConcurrency}.
     *
     * @return {@code max(2, availableProcessors())}
     */
    public static int processorsAtLeastTwo() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /**
     * @param value see {@link #claimConcurrency()}
     * @return a copy with it
     */
    public DialectPolicy withClaimConcurrency(int value) {
        return new DialectPolicy(value, maxPayloadLength, enforceReadCommitted, readCommittedStatements, retryPolicy,
                reissuesExistingSchema);
    }

    /**
     * @param value see {@link #maxPayloadLength()}
     * @return a copy with it
     */
    public DialectPolicy withMaxPayloadLength(int value) {
        return new DialectPolicy(claimConcurrency, value, enforceReadCommitted, readCommittedStatements, retryPolicy,
                reissuesExistingSchema);
    }

    /**
     * @param value see {@link #enforceReadCommitted()}
     * @return a copy with it
     */
    public DialectPolicy withEnforceReadCommitted(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, value, readCommittedStatements, retryPolicy,
                reissuesExistingSchema);
    }

    /**
     * @param value see {@link #readCommittedStatements()}
     * @return a copy with it
     */
    public DialectPolicy withReadCommittedStatements(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, value, retryPolicy,
                reissuesExistingSchema);
    }

    /**
     * @param value see {@link #retryPolicy()}
     * @return a copy with it
     */
    public DialectPolicy withRetryPolicy(RetryPolicy value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                value, reissuesExistingSchema);
    }

    /**
     * @param value see {@link #reissuesExistingSchema()}
     * @return a copy with it
     */
    public DialectPolicy withReissuesExistingSchema(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                retryPolicy, value);
    }
}
