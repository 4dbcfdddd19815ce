package dev.rowqueue.support;

import dev.rowqueue.spi.WorkTables;

/**
 * The job state machine of a work queue, written once: the SQL fragments every statement set composes its claims,
 * leases, nacks and burials of, and the one rule, in SQL and in Java, of when a job is dead.
 *
 * <p>A job is live ({@code state = }{@value WorkTables#LIVE}) or dead ({@code state = }{@value WorkTables#DEAD}). A
 * live job is claimable once its {@code due_ms} has passed; a lease sets its {@code lease_token} and moves
 * {@code due_ms} to the lease's end, so a lease that ends without an ack makes the job claimable again. The
 * {@code attempts} column counts failures: a nack counts one, and so does a claim of a job whose previous lease ended
 * without ack or nack (its {@code lease_token} is still set). A job whose failures reach the queue's maximum attempts
 * is dead ({@link #exhausted(int, int)}), and a dead job gives up its unique key.
 *
 * <p>Fragments take the dialect's current-time expression ({@code now}, {@link dev.rowqueue.spi.Dialect#nowMillis()})
 * and, where a statement names the jobs table by an alias, that alias ({@code "q"} for {@code q.attempts}; "" for
 * none). Assignments ({@link #lease}, {@link #nack}, {@link #bury}, {@link #release}, {@link #revive}) go after
 * {@code SET}, conditions ({@link #claimable}) after {@code WHERE} or {@code AND}; their parameters are named in each
 * method's description.
 */
public final class JobRules {

    private JobRules() {
    }

    /**
     * That a job may be claimed: live and due.
     *
     * @param now the current-time expression
     * @return {@code state = 0 AND due_ms <= <now>}
     */
    public static String claimable(String now) {
        return claimable("", now);
    }

    /**
     * That a job of an aliased table may be claimed: live and due.
     *
     * @param alias the jobs table's alias in the statement, or "" for none
     * @param now   the current-time expression
     * @return {@code <alias>.state = 0 AND <alias>.due_ms <= <now>}
     */
    public static String claimable(String alias, String now) {
        String a = prefix(alias);
        return a + "state = " + WorkTables.LIVE + " AND " + a + "due_ms <= " + now;
    }

    /**
     * That a job found by its primary key is live, {@code state + 0 = 0}: the same test as {@code state = 0}, written
     * so that no planner matches it with the claim index (its leading column, or PostgreSQL's partial index condition)
     * and prefers that index to the primary key. PostgreSQL's generic plans did, for statements on one job
     * (docs/postgresql.md, "Ack and claim"); SQLite did, for {@link #claimableById a lease} of two ids or more.
     */
    public static final String LIVE_BY_ID = "state + 0 = " + WorkTables.LIVE;

    /**
     * That a job found by its primary key may be claimed, for the lease of candidates by id: {@link #LIVE_BY_ID} and
     * the due time written the same way. SQLite 3.54, given {@code state = 0 AND due_ms <= <now>}, searched the claim
     * index for {@code id IN (...)} with two ids or more: a lease of two jobs walked every live job (600 µs more than
     * a lease of one in a queue of 20,000; docs/benchmarks.md).
     *
     * @param now the current-time expression
     * @return {@code state + 0 = 0 AND due_ms + 0 <= <now>}
     */
    public static String claimableById(String now) {
        return LIVE_BY_ID + " AND due_ms + 0 <= " + now;
    }

    /**
     * The lease of a claimed job, parameters {@code :token} and {@code :lease} (its length in milliseconds): a job
     * still holding an earlier lease (one that ended without ack or nack) counts a failure
     * ({@link #attemptsAfterLease}).
     *
     * @param now the current-time expression
     * @return the assignments of {@code attempts} (one more where {@code lease_token} was set), {@code lease_token =
     *         :token} and {@code due_ms = <now> + :lease}
     */
    public static String lease(String now) {
        return leaseUntil("", now + " + :lease");
    }

    /**
     * {@link #lease(String)} in a statement that names the jobs table by an alias: the values read the aliased
     * columns, the assigned columns stay unqualified (PostgreSQL refuses a qualified {@code SET} column).
     *
     * @param alias the jobs table's alias, or "" for none
     * @param now   the current-time expression
     * @return the assignments of {@link #lease(String)}, reading {@code <alias>.attempts} and
     *         {@code <alias>.lease_token}
     */
    public static String lease(String alias, String now) {
        return leaseUntil(alias, now + " + :lease");
    }

    /**
     * {@link #lease(String, String)} with the lease's end given whole, for a statement that computed it another way
     * (a parameter {@code :until}, a variable of a compound statement).
     *
     * @param alias the jobs table's alias, or "" for none
     * @param until the expression of the lease's end, in epoch milliseconds
     * @return {@code attempts = ..., lease_token = :token, due_ms = <until>}
     */
    public static String leaseUntil(String alias, String until) {
        String a = prefix(alias);
        return "attempts = " + a + "attempts + CASE WHEN " + a + "lease_token IS NULL THEN 0 ELSE 1 END,"
                + " lease_token = :token, due_ms = " + until;
    }

    /**
     * The failures a job has after {@link #lease}, for a claim that read the row before leasing it.
     *
     * @param attempts the job's {@code attempts} before the lease
     * @param leased   whether it held a lease then ({@code lease_token} set)
     * @return its {@code attempts} after the lease
     */
    public static int attemptsAfterLease(int attempts, boolean leased) {
        return attempts + (leased ? 1 : 0);
    }

    /**
     * A nack of a leased job, parameters {@code :max} (the queue's maximum attempts), {@code :delay} (when it is due
     * again, in milliseconds from now) and {@code :error}: the failure is counted, the lease dropped, and the job is
     * due again, or dead, its unique key released, if that failure exhausted its attempts ({@link #exhausted}).
     * {@code state} and {@code unique_key} are assigned before {@code attempts}: MySQL evaluates single-table
     * {@code SET} clauses left to right.
     *
     * @param now the current-time expression
     * @return {@code state = CASE WHEN attempts + 1 >= :max THEN 1 ELSE 0 END, unique_key = CASE WHEN ... THEN NULL
     *         ELSE unique_key END, attempts = attempts + 1, due_ms = <now> + :delay, last_error = :error,
     *         lease_token = NULL}
     */
    public static String nack(String now) {
        String dead = exhausted("attempts + 1", ":max");
        return "state = CASE WHEN " + dead + " THEN " + WorkTables.DEAD + " ELSE " + WorkTables.LIVE + " END,"
                + " unique_key = CASE WHEN " + dead + " THEN NULL ELSE unique_key END, attempts = attempts + 1,"
                + " due_ms = " + now + " + :delay, last_error = :error, lease_token = NULL";
    }

    /**
     * The burial of a leased job (by its consumer, or by the claim that found its attempts exhausted), parameter
     * {@code :error}: dead, its unique key released, its lease dropped.
     *
     * @return {@code state = 1, unique_key = NULL, last_error = :error, lease_token = NULL}
     */
    public static String bury() {
        return "state = " + WorkTables.DEAD + ", unique_key = NULL, last_error = :error, lease_token = NULL";
    }

    /**
     * The release of a leased job, or of every job of some leases: due now, its lease dropped, no failure counted.
     *
     * @param now the current-time expression
     * @return {@code due_ms = <now>, lease_token = NULL}
     */
    public static String release(String now) {
        return "due_ms = " + now + ", lease_token = NULL";
    }

    /**
     * The revival of a dead job: live, due now, its failures forgotten, no lease.
     *
     * @param now the current-time expression
     * @return {@code state = 0, attempts = 0, due_ms = <now>, lease_token = NULL}
     */
    public static String revive(String now) {
        return "state = " + WorkTables.LIVE + ", attempts = 0, due_ms = " + now + ", lease_token = NULL";
    }

    /**
     * When a job is dead: once its failures reach the queue's maximum attempts. The SQL form of
     * {@link #exhausted(int, int)}.
     *
     * @param failures    the expression of the job's failures
     * @param maxAttempts the expression of the maximum attempts
     * @return {@code <failures> >= <maxAttempts>}
     */
    public static String exhausted(String failures, String maxAttempts) {
        return failures + " >= " + maxAttempts;
    }

    /**
     * When a job is dead: once its failures reach the queue's maximum attempts. A nack decides it in SQL
     * ({@link #nack}); a claim that counted a failure ({@link #lease}) hands back jobs whose count reached it, and the
     * queue buries them with this test instead of delivering them again.
     *
     * @param failures    the job's failures, counted ({@link dev.rowqueue.Job#failures()}, plus one for a failure
     *                    about to be counted)
     * @param maxAttempts the queue's maximum attempts
     * @return whether the job is dead
     */
    public static boolean exhausted(int failures, int maxAttempts) {
        return failures >= maxAttempts;
    }

    private static String prefix(String alias) {
        return alias.isEmpty() ? "" : alias + ".";
    }
}
