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
 * @param byId           how statements on one job found by its primary key begin ({@link ById}); {@code null} for
 *                       {@link ById#standard}
 * @param gate           the queue's claim gate, taken first by claims under a per-key limit: a statement that locks
 *                       something until the transaction ends (PostgreSQL's advisory lock); binds nothing and may
 *                       return rows, which are ignored; {@code null} for the portable gate, the row
 *                       {@link dev.rowqueue.spi.WorkTables#CLAIM_GATE} of the cursors table, bumped
 * @param writeFirst     a write of no row run first in a claim's and a keyed enqueue's transaction, for a database
 *                       that takes its one write lock at the first write and otherwise may fail a transaction that
 *                       read before it wrote (SQLite); binds nothing
 * @param unlockedKeyedCandidates whether the candidates of claims under a rule are read without locks (the dialect's
 *                       plain {@link dev.rowqueue.spi.Dialect#limit}), for a database whose locking reads would lock,
 *                       and skip, rows the query's subqueries count; the lease's conditional update settles races
 * @param before         the condition that a key's job {@code o} comes before the candidate {@code j} in the key's
 *                       order ({@code key_seq}, then id), for a database with row value comparisons its indexes
 *                       serve; {@code null} for SQL-92's form
 * @param forms          the database's hooks ({@link WorkForms}), where statements do not say enough; {@code null}
 *                       for none
 */
public record WorkStatements(Sql enqueueOne, Sql claimable, Sql claim, Sql cursor, String leaseReturning,
                             ClaimWindow window, ById byId, Sql gate, Sql writeFirst, boolean unlockedKeyedCandidates,
                             java.util.function.BinaryOperator<String> before, WorkForms.Factory forms) {

    /** The placeholder of {@link #leaseReturning} for the id list. */
    public static final String IDS = ":ids";

    /** The portable work queue: no statement of the database's own. */
    public static final WorkStatements PORTABLE = new WorkStatements(null, null, null, null, null, null, null, null,
            null, false, null, null);

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
        return with(c -> c.enqueueOne = enqueueOne);
    }

    /**
     * @param claimable the read that tells whether a claim can find a job ({@link #claimable()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withClaimable(Sql claimable) {
        return with(c -> c.claimable = claimable);
    }

    /**
     * @param claim the claim in one statement ({@link #claim()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withClaim(Sql claim) {
        return with(c -> c.claim = claim);
    }

    /**
     * @param cursor the rotation cursor's creation and read ({@link #cursor()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withCursor(Sql cursor) {
        return with(c -> c.cursor = cursor);
    }

    /**
     * @param leaseReturning the lease that returns the jobs ({@link #leaseReturning()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withLeaseReturning(String leaseReturning) {
        return with(c -> c.leaseReturning = leaseReturning);
    }

    /**
     * @param window the claim window's statements ({@link #window()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withWindow(ClaimWindow window) {
        return with(c -> c.window = window);
    }

    /**
     * How statements on one job found by its primary key (ack, nack, release, lease extension, burial) begin, and
     * their test that the job is live. A database changes them where its planner needs it (an index hint, a test a
     * partial index cannot match).
     *
     * @param update the beginning of the {@code UPDATE}, before {@code SET}
     * @param delete the beginning of the {@code DELETE}, before {@code WHERE}
     * @param live   the condition that the job is live
     */
    public record ById(String update, String delete, String live) {
        /**
         * @param t the queue's tables
         * @return {@code UPDATE <jobs>}, {@code DELETE FROM <jobs>} and {@code state = 0}
         */
        public static ById standard(dev.rowqueue.spi.WorkTables t) {
            return new ById("UPDATE " + t.jobs(), "DELETE FROM " + t.jobs(),
                    "state = " + dev.rowqueue.spi.WorkTables.LIVE);
        }

        /**
         * @param condition another liveness test
         * @return these forms with it
         */
        public ById withLive(String condition) {
            return new ById(update, delete, condition);
        }
    }

    /**
     * @param byId how statements on one job begin ({@link #byId()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withById(ById byId) {
        return with(c -> c.byId = byId);
    }

    /**
     * @param gate the claim gate's statement ({@link #gate()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withGate(Sql gate) {
        return with(c -> c.gate = gate);
    }

    /**
     * @param writeFirst the first write of claims and keyed enqueues ({@link #writeFirst()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withWriteFirst(Sql writeFirst) {
        return with(c -> c.writeFirst = writeFirst);
    }

    /**
     * @return these statements with the candidates of claims under a rule read without locks
     *         ({@link #unlockedKeyedCandidates()})
     */
    public WorkStatements withUnlockedKeyedCandidates() {
        return with(c -> c.unlockedKeyedCandidates = true);
    }

    /**
     * @param before the key-order condition ({@link #before()})
     * @return these statements with it; the others unchanged
     */
    public WorkStatements withBefore(java.util.function.BinaryOperator<String> before) {
        return with(c -> c.before = before);
    }

    /**
     * @param forms the database's hooks ({@link #forms()})
     * @return these statements with them; the others unchanged
     */
    public WorkStatements withForms(WorkForms.Factory forms) {
        return with(c -> c.forms = forms);
    }

    /** These statements with one component changed by {@code change}. */
    private WorkStatements with(java.util.function.Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.build();
    }

    /** A copy of the components while one changes: the one place that names them all. */
    private final class Copy {
        private Sql enqueueOne = WorkStatements.this.enqueueOne;
        private Sql claimable = WorkStatements.this.claimable;
        private Sql claim = WorkStatements.this.claim;
        private Sql cursor = WorkStatements.this.cursor;
        private String leaseReturning = WorkStatements.this.leaseReturning;
        private ClaimWindow window = WorkStatements.this.window;
        private ById byId = WorkStatements.this.byId;
        private Sql gate = WorkStatements.this.gate;
        private Sql writeFirst = WorkStatements.this.writeFirst;
        private boolean unlockedKeyedCandidates = WorkStatements.this.unlockedKeyedCandidates;
        private java.util.function.BinaryOperator<String> before = WorkStatements.this.before;
        private WorkForms.Factory forms = WorkStatements.this.forms;

        private WorkStatements build() {
            return new WorkStatements(enqueueOne, claimable, claim, cursor, leaseReturning, window, byId, gate,
                    writeFirst, unlockedKeyedCandidates, before, forms);
        }
    }
}
