package dev.rowqueue.spi;

import dev.rowqueue.RetryPolicy;

import java.util.Objects;

/**
 * A dialect's answers to how the core runs on its database: how many claims run at once, how long payloads may be,
 * which isolation level the core enforces, how often it retries, whether it reissues existing schema DDL, and how
 * transactions that meet on one row are kept apart in the JVM.
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
 * @param sharedClaimGates        whether every {@code RowQueues} instance on one database in this JVM shares its claim
 *                                gates ({@link #claimConcurrency}), so that consumers of different instances take
 *                                turns too. A database where a read waits for another transaction's uncommitted write
 *                                answers {@code true}: consumers that ack and claim in one transaction wait for each
 *                                other's rows there, and two such claims of one queue from two instances can wait in a
 *                                cycle that the database may find only after seconds (Derby: 20 s)
 * @param hotRowTurns             whether writers of one hot row (a ring group's head and slots, a counter, a work
 *                                queue's claim gate, cursors and job rows) take turns within this JVM, each attempt
 *                                holding a lock of its row from before its transaction begins until after it ends. A
 *                                database where a second writer of a row fails instead of waiting for the first answers
 *                                {@code true}; writers in other processes still meet there and are retried
 */
public record DialectPolicy(int claimConcurrency, int maxPayloadLength, boolean enforceReadCommitted,
                            boolean readCommittedStatements, RetryPolicy retryPolicy,
                            boolean reissuesExistingSchema, boolean sharedClaimGates, boolean hotRowTurns) {

    /**
     * The portable answers: no claim limit, payloads of 4000 characters, READ COMMITTED enforced for transactions
     * only, {@link RetryPolicy#defaults()}, schema DDL reissued, claim gates of each instance's own, writers that
     * do not take turns.
     */
    public static final DialectPolicy DEFAULTS = new DialectPolicy(Integer.MAX_VALUE, 4000, true, false,
            RetryPolicy.defaults(), true, false, false);

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
                reissuesExistingSchema, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #maxPayloadLength()}
     * @return a copy with it
     */
    public DialectPolicy withMaxPayloadLength(int value) {
        return new DialectPolicy(claimConcurrency, value, enforceReadCommitted, readCommittedStatements, retryPolicy,
                reissuesExistingSchema, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #enforceReadCommitted()}
     * @return a copy with it
     */
    public DialectPolicy withEnforceReadCommitted(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, value, readCommittedStatements, retryPolicy,
                reissuesExistingSchema, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #readCommittedStatements()}
     * @return a copy with it
     */
    public DialectPolicy withReadCommittedStatements(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, value, retryPolicy,
                reissuesExistingSchema, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #retryPolicy()}
     * @return a copy with it
     */
    public DialectPolicy withRetryPolicy(RetryPolicy value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                value, reissuesExistingSchema, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #reissuesExistingSchema()}
     * @return a copy with it
     */
    public DialectPolicy withReissuesExistingSchema(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                retryPolicy, value, sharedClaimGates, hotRowTurns);
    }

    /**
     * @param value see {@link #sharedClaimGates()}
     * @return a copy with it
     */
    public DialectPolicy withSharedClaimGates(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                retryPolicy, reissuesExistingSchema, value, hotRowTurns);
    }

    /**
     * @param value see {@link #hotRowTurns()}
     * @return a copy with it
     */
    public DialectPolicy withHotRowTurns(boolean value) {
        return new DialectPolicy(claimConcurrency, maxPayloadLength, enforceReadCommitted, readCommittedStatements,
                retryPolicy, reissuesExistingSchema, sharedClaimGates, value);
    }
}
