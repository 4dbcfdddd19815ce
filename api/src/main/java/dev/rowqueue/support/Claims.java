package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Enqueues and claims of a work queue without keys. A claim selects candidate ids in claim order, then leases them
 * with a conditional {@code UPDATE} that repeats the claimability test ({@link JobRules#claimable}).
 * Databases re-evaluate an UPDATE's condition on the latest committed row after waiting for a row lock, so when two
 * consumers race for a row, the loser's update matches nothing and the job is never leased twice. Where the dialect
 * skips locked rows, candidates are locked as they are selected and racers skip them. A database's
 * {@link WorkStatements} replace steps.
 */
public final class Claims {

    /** How many rounds a claim that has jobs but fewer than it asked for runs, losing candidates to other consumers. */
    public static final int CLAIM_ROUNDS = 3;

    /**
     * How many rounds a claim that has no job yet runs while it finds candidates and loses them all to other
     * consumers. An empty claim must mean that nothing was left for the claimer (consumers stop at their first one),
     * and each lost round means racers took jobs, so the rounds end when the claimable jobs do; this only bounds a
     * claim that keeps losing.
     */
    public static final int EMPTY_CLAIM_ROUNDS = 32;

    /**
     * @param round    the rounds run so far
     * @param claimed  the jobs the claim has
     * @return whether the claim may run another round (it still wants jobs and the last round lost some)
     */
    public static boolean anotherRound(int round, int claimed) {
        return round < (claimed == 0 ? EMPTY_CLAIM_ROUNDS : CLAIM_ROUNDS);
    }

    /** Which candidates a claim or rotation looks for. */
    public enum Kind {
        /** Claim order: priority descending, due time, id. */
        CLAIM,
        /** Rotation: ids above the cursor, ascending. */
        AFTER,
        /** Rotation after wrapping: ids up to the cursor, ascending. */
        UP_TO
    }

    private final Dialect dialect;
    private final WorkTables t;
    private final String now;
    private final WorkStatements statements;
    private final ClaimWindows windows;
    private final Sql insert;
    private final Sql candidates;
    private final Sql candidatesAfter;
    private final Sql candidatesUpTo;

    /**
     * @param dialect     the dialect
     * @param t           the queue's tables
     * @param statements  the database's own statements
     * @param emptyRounds how many windows in a row a windowed claim widens while every row of a full one was taken
     */
    public Claims(Dialect dialect, WorkTables t, WorkStatements statements, int emptyRounds) {
        this.dialect = dialect;
        this.t = t;
        this.now = dialect.nowMillis();
        this.statements = statements;
        this.windows = statements.window() == null ? null : new ClaimWindows(dialect, statements.window(), emptyRounds);
        insert = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES"
                + " (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")");
        String claimable = "SELECT id FROM " + t.jobs() + " WHERE " + JobRules.claimable(now);
        candidates = Sql.of(claimable + " ORDER BY prio DESC, due_ms, id" + dialect.lockingLimit("n"));
        candidatesAfter = Sql.of(claimable + " AND id > :last ORDER BY id" + dialect.lockingLimit("n"));
        candidatesUpTo = Sql.of(claimable + " AND id <= :last ORDER BY id" + dialect.lockingLimit("n"));
    }

    /** @return the windows candidates come from, or {@code null} where they come from one locking query */
    public ClaimWindows windows() {
        return windows;
    }

    /**
     * @param payloads the payloads
     * @param priority their priority
     * @param delayMs  their delay
     * @return the enqueue: one statement for one payload where the database has {@link WorkStatements#enqueueOne()},
     *         else inserts reading generated keys, in one transaction
     */
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        Sql one = statements.enqueueOne();
        if (one != null && payloads.size() == 1) {
            return SqlOp.statement(c -> {
                try (PreparedStatement ps = one.prepare(c)) {
                    dialect.bind(one, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    return new long[] {Jdbc.firstLong(ps).orElseThrow(() -> new SQLException(
                            "the enqueue into " + t.jobs() + " returned no id"))};
                }
            });
        }
        return SqlOp.transaction(c -> {
            long[] ids = new long[payloads.size()];
            try (PreparedStatement ps = insert.prepare(c, dialect.generatedKeyColumn())) {
                for (int i = 0; i < ids.length; i++) {
                    dialect.bind(insert, ps).set("payload", payloads.get(i)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        if (!keys.next()) {
                            throw new SQLException("the driver returned no generated id for " + t.jobs());
                        }
                        ids[i] = keys.getLong(1);
                    }
                }
            }
            return ids;
        });
    }

    /**
     * Finds up to {@code n} claimable job ids (live, due), locking them where the dialect skips locked rows.
     *
     * @param c    a connection in a transaction
     * @param kind claim order, or rotation before or after wrapping
     * @param n    the most ids wanted
     * @param last the rotation cursor's position (ignored for claims)
     * @return ids in the order the caller wants the jobs
     * @throws SQLException from the driver
     */
    public List<Long> candidates(Connection c, Kind kind, int n, long last) throws SQLException {
        if (windows != null) {
            return switch (kind) {
                case CLAIM -> windows.claim(c, n);
                case AFTER -> windows.range(c, last, Long.MAX_VALUE, n);
                case UP_TO -> windows.range(c, Long.MIN_VALUE, last, n);
            };
        }
        Sql sql = switch (kind) {
            case CLAIM -> candidates;
            case AFTER -> candidatesAfter;
            case UP_TO -> candidatesUpTo;
        };
        return select(c, sql, n, last);
    }

    /**
     * Runs a candidate query: binds {@code :last} if the query has it, and limits the rows to {@code n}, through
     * {@code :n} or, where the query has no row limit, on the cursor.
     *
     * @param c    a connection in a transaction
     * @param sql  a query returning ids
     * @param n    the most ids wanted
     * @param last the rotation cursor's position, if the query uses it
     * @return the ids in query order
     * @throws SQLException from the driver
     */
    public List<Long> select(Connection c, Sql sql, int n, long last) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).limit("n", n);
            if (sql.has("last")) {
                b.set("last", last);
            }
            b.done();
            return Jdbc.longs(ps);
        }
    }

    /**
     * Leases those of {@code ids} that are still claimable and reads them back: with
     * {@link WorkStatements#leaseReturning()} in one statement, else an {@code UPDATE} and a {@code SELECT}.
     *
     * @param c       a connection in a transaction
     * @param ids     candidate ids in the order the caller wants the jobs
     * @param leaseMs the lease length
     * @param token   the lease token
     * @return the leased jobs, in the order of {@code ids}
     * @throws SQLException from the driver
     */
    public List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        if (statements.leaseReturning() != null) {
            Sql lease = statements.leaseReturning(ids.size());
            try (PreparedStatement ps = lease.prepare(c)) {
                Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
                return inOrder(Jdbc.jobs(ps, dialect), ids);
            }
        }
        String in = Jdbc.parameterList(ids.size(), "id");
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET " + JobRules.lease(now) + " WHERE id IN (" + in + ") AND "
                + JobRules.claimable(now));
        int leased;
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
            leased = ps.executeUpdate();
        }
        if (leased == 0) {
            return List.of();
        }
        Sql read = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE id IN (" + in
                + ") AND lease_token = :token");
        try (PreparedStatement ps = read.prepare(c)) {
            Jdbc.bindList(dialect.bind(read, ps).set("token", token), "id", ids).done();
            return inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }

    /**
     * @param jobs jobs in any order
     * @param ids  the wanted order
     * @return the jobs sorted by their position in {@code ids}
     */
    public static List<Job> inOrder(List<Job> jobs, List<Long> ids) {
        Map<Long, Integer> position = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            position.put(ids.get(i), i);
        }
        List<Job> sorted = new ArrayList<>(jobs);
        sorted.sort(Comparator.comparingInt(j -> position.getOrDefault(j.id(), Integer.MAX_VALUE)));
        return sorted;
    }

    /**
     * A job as a one-statement claim returned it, with the due time it had before the lease: {@code RETURNING} gives
     * the rows in no particular order, and the new due time (the lease's end) no longer tells the claim order.
     *
     * @param job       the leased job
     * @param dueBefore its due time before the lease
     */
    public record Claimed(Job job, long dueBefore) {
        /**
         * @param rs      a row with the columns {@link Jdbc#job} reads and {@code claimed_due}
         * @param dialect reads the key column
         * @return the job and its due time before the lease
         * @throws SQLException from the driver
         */
        public static Claimed of(ResultSet rs, Dialect dialect) throws SQLException {
            return new Claimed(Jdbc.job(rs, dialect), rs.getLong("claimed_due"));
        }
    }

    /**
     * Runs a one-statement claim that binds {@code :n}, {@code :token} and {@code :lease} and returns the leased jobs
     * with their due times before the lease ({@link Claimed#of}), in any order.
     *
     * @param c       a connection
     * @param claim   the statement
     * @param max     the most jobs to claim
     * @param leaseMs the lease length
     * @param token   the lease token
     * @return the jobs in claim order
     * @throws SQLException from the driver
     */
    public List<Job> returning(Connection c, Sql claim, int max, long leaseMs, long token)
            throws SQLException {
        List<Claimed> claimed = new ArrayList<>();
        try (PreparedStatement ps = claim.prepare(c)) {
            dialect.bind(claim, ps).setInt("n", max).set("token", token).set("lease", leaseMs).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claimed.add(Claimed.of(rs, dialect));
                }
            }
        }
        return inClaimOrder(claimed);
    }

    /** Priority descending, due time before the lease, id: the order a claim chooses jobs in. */
    private static final Comparator<Claimed> CLAIM_ORDER = Comparator.<Claimed>comparingInt(c -> c.job().priority())
            .reversed().thenComparingLong(Claimed::dueBefore).thenComparingLong(c -> c.job().id());

    /**
     * @param claimed jobs a claim returned, in any order (sorted in place)
     * @return the jobs in claim order
     */
    public static List<Job> inClaimOrder(List<Claimed> claimed) {
        claimed.sort(CLAIM_ORDER);
        List<Job> jobs = new ArrayList<>(claimed.size());
        for (Claimed c : claimed) {
            jobs.add(c.job());
        }
        return jobs;
    }
}
