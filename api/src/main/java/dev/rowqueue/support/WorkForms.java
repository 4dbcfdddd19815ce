package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.ClaimRule;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkStore.AckedAndClaimed;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;

/**
 * The work queue's hooks: code a database runs where statements alone ({@link WorkStatements}) cannot say what it
 * does (PostgreSQL's arrays and data-modifying CTEs, MySQL's compound statements and cluster rules, Db2's
 * {@code FINAL TABLE}). A dialect implements only the hooks it needs, in a class of its own, and hands a
 * {@link Factory} to {@link WorkStatements#withForms}; the work queue's store stays the core's.
 *
 * <p>Every method has a default that returns {@code null}: the store then runs its portable operation or step. An
 * operation hook ({@link #enqueue}, {@link #claim}, ...) replaces one operation of {@link WorkStore}, and may decline
 * a call (return {@code null}) or delegate to the portable operations that {@link Portable} offers; a step hook
 * ({@link #leaseAndRead}, {@link #insertKeyed}, {@link #keyedCandidates}) replaces one step that the portable
 * operations take, wherever they take it. The portable operations run the hooks of their steps, and the operations they
 * call (a portable {@code ackAndClaim} calls {@link #ack} and {@link #claim}) run through the hooks too; only the
 * operation asked of {@link Portable} is the portable one.
 */
public interface WorkForms {

    /** No hooks: the portable work queue. */
    WorkForms NONE = new WorkForms() {
    };

    /** Builds a queue's hooks once its store exists. */
    @FunctionalInterface
    interface Factory {
        /**
         * @param portable the store's portable operations and the parts of its statements, for hooks that decline
         *                 some calls or compose their statements from the portable ones
         * @return the hooks
         */
        WorkForms create(Portable portable);
    }

    /**
     * What a hook may ask of the core's store: the portable form of the operations hooks delegate to (each runs the
     * portable form of the operation asked, with every hook of its steps) and the parts its statements are made of.
     */
    interface Portable {

        /** @return the portable claim ({@link WorkStore#claim(int, long, long)}, same parameters) */
        SqlOp<List<Job>> claim(int max, long leaseMs, long token);

        /**
         * @return the portable acks and claim, in one transaction
         *         ({@link WorkStore#ackAndClaim(long[], long[], int, long, long)}, same parameters)
         */
        SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token);

        /**
         * @return the portable acks and claim under a rule, in one transaction
         *         ({@link WorkStore#ackAndClaim(long[], long[], int, long, long, ClaimRule)}, same parameters)
         */
        SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                           ClaimRule rule);

        /** @return the portable ack ({@link WorkStore#ack}, same parameters) */
        SqlOp<Boolean> ack(long id, long token);

        /** @return the statements of claims and enqueues (candidates, leases, one-statement claims) */
        Claims claims();

        /** @return the keyed statements' builder */
        KeyedClaims keyed();

        /**
         * The portable candidates of a claim under a rule ({@link #keyedCandidatesSql}).
         *
         * @param c    a connection in a transaction
         * @param rule the rule, not plain
         * @param n    the most ids
         * @return ids in claim order
         * @throws SQLException from the driver
         */
        List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException;

        /**
         * The candidates of a claim under a rule: due jobs, and, under a per-key limit, only a key's next job and only
         * while the key has fewer than the limit leased, in the rule's order ({@link #keyedOrder}).
         *
         * @param rule    the rule, not plain
         * @param locking the clauses after {@code ORDER BY}
         * @return the query, on alias {@code j}
         */
        String keyedCandidatesSql(ClaimRule rule, String locking);

        /**
         * @param rule  the rule
         * @param extra a further condition on the rows the per-key subqueries look at, by their alias; "" for none
         * @return the per-key part of the candidates' condition ({@link KeyedClaims#condition}), or ""
         */
        String keyedCondition(ClaimRule rule, UnaryOperator<String> extra);

        /**
         * @param rule the rule
         * @return the candidates' {@code ORDER BY} on alias {@code j}: by round, priority and id for fair claims, else
         *         by priority, due time and id
         */
        String keyedOrder(ClaimRule rule);

        /**
         * Locks a rotation cursor's row for the transaction, creating it at position 0 if missing.
         *
         * @param c      a connection in a transaction
         * @param cursor the cursor's name
         * @return its position
         * @throws SQLException from the driver
         */
        long lockCursor(Connection c, String cursor) throws SQLException;
    }

    // ---------------------------------------------------------------- operations

    /**
     * @param payloads the payloads, at least one
     * @param priority the priority
     * @param delayMs  the delay
     * @return the enqueue ({@link WorkStore#enqueue(List, int, long)}), or {@code null} for the portable one
     */
    default SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        return null;
    }

    /**
     * @param payloads  the payloads (one with a unique key)
     * @param priority  the priority
     * @param delayMs   the delay
     * @param key       the job key, or {@code null}
     * @param uniqueKey the unique key, or {@code null}; not both {@code null}
     * @return the keyed enqueue ({@link WorkStore#enqueue(List, int, long, String, String)}), or {@code null}
     */
    default SqlOp<long[]> enqueueKeyed(List<String> payloads, int priority, long delayMs, String key,
                                       String uniqueKey) {
        return null;
    }

    /**
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @return the claim ({@link WorkStore#claim(int, long, long)}), or {@code null}
     */
    default SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        return null;
    }

    /**
     * @param ids     the jobs to ack
     * @param tokens  their lease tokens
     * @param max     the most jobs to claim
     * @param leaseMs the lease
     * @param token   the lease token
     * @return the acks and the claim ({@link WorkStore#ackAndClaim(long[], long[], int, long, long)}), or {@code null}
     */
    default SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        return null;
    }

    /**
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @param rule    the rule, not plain
     * @return the claim under the rule ({@link WorkStore#claim(int, long, long, ClaimRule)}), or {@code null}
     */
    default SqlOp<List<Job>> claim(int max, long leaseMs, long token, ClaimRule rule) {
        return null;
    }

    /**
     * @param ids     the jobs to ack
     * @param tokens  their lease tokens
     * @param max     the most jobs to claim
     * @param leaseMs the lease
     * @param token   the lease token
     * @param rule    the rule, not plain
     * @return the acks and the claim under the rule, or {@code null}
     */
    default SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token,
                                              ClaimRule rule) {
        return null;
    }

    /**
     * @param cursor  the cursor's name
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @return the rotation ({@link WorkStore#rotate}), or {@code null}
     */
    default SqlOp<List<Job>> rotate(String cursor, int max, long leaseMs, long token) {
        return null;
    }

    /**
     * @param id    the job
     * @param token its lease token
     * @return the ack ({@link WorkStore#ack}), or {@code null}
     */
    default SqlOp<Boolean> ack(long id, long token) {
        return null;
    }

    /**
     * @param id          the job
     * @param token       its lease token
     * @param delayMs     the retry delay
     * @param maxAttempts the attempts after which it is dead
     * @param error       the error
     * @return the nack ({@link WorkStore#nack}), or {@code null}
     */
    default SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return null;
    }

    /**
     * @param id    the job
     * @param token its lease token
     * @return the release ({@link WorkStore#release}), or {@code null}
     */
    default SqlOp<Boolean> release(long id, long token) {
        return null;
    }

    /**
     * @param id a dead job, or empty for all
     * @return the revival ({@link WorkStore#revive}), or {@code null}
     */
    default SqlOp<Integer> revive(OptionalLong id) {
        return null;
    }

    // ---------------------------------------------------------------- steps

    /**
     * Leases those of {@code ids} that are still claimable and reads them back: the step of rotations and of claims
     * under a rule.
     *
     * @param c       a connection in a transaction
     * @param ids     candidate ids, in the order the caller wants the jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @return the leased jobs in the order of {@code ids}, or {@code null} for the portable step
     * @throws SQLException from the driver
     */
    default List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        return null;
    }

    /**
     * Inserts one job with its key columns: the step of the portable keyed enqueue.
     *
     * @param c         a connection
     * @param payload   the payload
     * @param priority  the priority
     * @param delayMs   the delay
     * @param key       the job key, or {@code null}
     * @param uniqueKey the unique key, or {@code null}
     * @param round     {@code key_seq}
     * @return the new id, or empty for the portable step
     * @throws SQLException from the driver, a unique-key violation included
     */
    default OptionalLong insertKeyed(Connection c, String payload, int priority, long delayMs, String key,
                                     String uniqueKey, long round) throws SQLException {
        return OptionalLong.empty();
    }

    /**
     * Finds the candidates of a claim under a rule: the step of the portable claims under a rule.
     *
     * @param c    a connection in a transaction
     * @param rule the rule, not plain
     * @param n    the most ids
     * @return ids in claim order, or {@code null} for the portable step
     * @throws SQLException from the driver
     */
    default List<Long> keyedCandidates(Connection c, ClaimRule rule, int n) throws SQLException {
        return null;
    }
}
