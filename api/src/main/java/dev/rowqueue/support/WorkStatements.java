package dev.rowqueue.support;

import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;

/**
 * The statements a database runs for a work queue instead of the portable ones; a {@code null} statement keeps the
 * portable step. The portable claim selects candidate ids in claim order (locking them where the dialect skips locked
 * rows), then leases them with a conditional {@code UPDATE} and reads them back.
 *
 * Built by name from {@link #PORTABLE} ({@code PORTABLE.withEnqueueOne(...).withClaim(...)}), so a slot left out
 * keeps the portable step.
 *
 * @param enqueueOne     an enqueue of one job in one statement that returns its id: binds {@code :payload},
 *                       {@code :prio} and {@code :delay}
 * @param claimable      a read without locks, run before {@code claim}, that returns a row only if a job is claimable;
 *                       when it returns none the claim ends empty without running {@code claim} (for a database where
 *                       a writing statement waits for every other writer)
 * @param claim          a claim in one statement, in auto-commit mode: binds {@code :n}, {@code :token} and
 *                       {@code :lease} and returns the leased jobs' {@link Jdbc#JOB_COLUMNS} and their due time before
 *                       the lease as {@code claimed_due}, in any order
 * @param cursor         a rotation cursor's creation (at 0) and read in one statement: binds {@code :cursor} and
 *                       returns its position; it must lock the row until the transaction ends
 * @param leaseReturning the lease of candidates that also returns them ({@link Jdbc#JOB_COLUMNS}), in one statement:
 *                       binds {@code :token} and {@code :lease}; {@value #IDS} stands for the candidates' id list,
 *                       and the statement must lease only those still live and due
 * @param window         candidates found in unlocked windows and locked one at a time ({@link ClaimWindow}), for a
 *                       database whose locking reads lock rows they do not return
 */
public record WorkStatements(Sql enqueueOne, Sql claimable, Sql claim, Sql cursor, String leaseReturning,
                             ClaimWindow window) {

    /** The placeholder of {@link #leaseReturning} for the id list. */
    public static final String IDS = ":ids";

    /** The portable work queue: no statement of the database's own. */
    public static final WorkStatements PORTABLE = new WorkStatements(null, null, null, null, null, null);

    /**
     * @param n how many ids the lease names
     * @return {@link #leaseReturning} with parameters {@code :id0} to {@code :id<n-1>} for the ids
     */
    public Sql leaseReturning(int n) {
        return Sql.of(leaseReturning.replace(IDS, Jdbc.parameterList(n, "id")));
    }

    /**
     * Claim candidates found in two steps: an unlocked, index-ordered window of ids, then the window's rows locked
     * one at a time, in that order, with a locking read that skips rows other consumers hold, until the batch is
     * full. A window whose rows were all taken by others is widened, until one is not full (it held every claimable
     * job). For a database whose {@code FOR UPDATE} query locks every row it reads before it sorts and cuts them to
     * the row limit, so that one consumer's claim of one job would hold a whole window.
     *
     * @param claim       the window of claimable ids in claim order: binds {@code :k}, the window's size
     * @param rotation    the window of ids in a range, ascending: binds {@code :from} (exclusive), {@code :to}
     *                    (inclusive) and {@code :k}
     * @param lockOne     the locking read of one id, returning it if it is still claimable and no other consumer holds
     *                    it: binds {@code :id}
     * @param keyedLimit  the clause after {@code ORDER BY} of a window of claim candidates under a claim rule, binding
     *                    {@code :k}
     * @param keyedOrder  the leading {@code ORDER BY} columns of claim candidates under a rule (alias {@code j}),
     *                    before the rule's own, for a planner that walks an index in order only when the
     *                    {@code ORDER BY} names its leading columns; empty for none
     */
    public record ClaimWindow(Sql claim, Sql rotation, Sql lockOne, String keyedLimit, String keyedOrder) {
    }

    /**
     * @param statements the statements of a claim window
     * @return work statements with only that
     */
    public static WorkStatements windowed(ClaimWindow statements) {
        return PORTABLE.withWindow(statements);
    }


    /**
     * @param enqueueOne the enqueue of one job ({@link #enqueueOne()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withEnqueueOne(Sql enqueueOne) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }

    /**
     * @param claimable the read that tells whether a claim can find a job ({@link #claimable()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withClaimable(Sql claimable) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }

    /**
     * @param claim the claim in one statement ({@link #claim()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withClaim(Sql claim) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }

    /**
     * @param cursor the rotation cursor's creation and read ({@link #cursor()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withCursor(Sql cursor) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }

    /**
     * @param leaseReturning the lease that returns the jobs ({@link #leaseReturning()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withLeaseReturning(String leaseReturning) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }

    /**
     * @param window the claim window's statements ({@link #window()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withWindow(ClaimWindow window) {
        return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window);
    }
}
