package dev.rowqueue.mysql;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardWorkStore;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Work queues on MySQL and MariaDB. Two claim paths (see {@link MySqlDialect.ClaimPath}):
 *
 * <ul>
 *   <li><b>skip-locked</b> (MySQL 8.0.1+, MariaDB 10.6+), two statements in one transaction: {@code SELECT <job
 *       columns>, <now> FROM jobs WHERE state = 0 AND due_ms <= <now> ORDER BY prio DESC, due_ms, id LIMIT :n FOR
 *       UPDATE SKIP LOCKED} locks the batch while other consumers pass it by, then {@code UPDATE ... WHERE id IN
 *       (...)} leases it. The rows are locked, so the jobs are known without reading them again. MySQL forbids a
 *       subquery on the table an {@code UPDATE} changes, hence two statements.</li>
 *   <li><b>last-insert-id</b>, seed 001's claim for servers without SKIP LOCKED (MySQL 5.7, MariaDB before 10.6), in
 *       its priority and schedule variant. A consistent (lock-free) read picks up to {@code n} candidate ids in claim
 *       order; then, once per job, {@code UPDATE jobs FORCE INDEX (PRIMARY) SET attempts = ..., lease_token = :token,
 *       due_ms = <now> + :lease, id = LAST_INSERT_ID(id) WHERE id IN (<candidates>) AND state = 0 AND due_ms <= <now>
 *       ORDER BY prio DESC, due_ms, id LIMIT 1} leases the first one still claimable and returns its id as the
 *       generated key. The update count tells whether anything was claimed: when nothing matches,
 *       {@code LAST_INSERT_ID()} keeps its old value. The update locks the row and re-checks the condition on its
 *       latest committed version after any lock wait, so two consumers never lease one job; a consumer that lost
 *       candidates to others tries again with fresh ones (three rounds). Bounding the update to candidates keeps it
 *       off rows a consistent read cannot see: scanning the claim index, it would wait for every uncommitted job of
 *       an open transaction (a transactional outbox) until that transaction ends. The leased rows are read back
 *       once, by id. The seed's last variant, a join with a derived table selecting the candidate, does not re-check
 *       the condition after the lock and can hand one row to two readers; it is not used. MySQL evaluates
 *       single-table {@code SET} clauses left to right: {@code attempts} is computed before {@code lease_token}
 *       changes.</li>
 * </ul>
 *
 * <p>A batch {@code enqueue} is one {@code INSERT ... VALUES (...), (...) RETURNING id} on MariaDB 10.5+; elsewhere
 * one {@code INSERT} per job, each id read as the generated key (a multi-row insert's later ids cannot be trusted to
 * be consecutive under {@code innodb_autoinc_lock_mode=2} or with {@code auto_increment_increment > 1}).
 */
final class MySqlWorkStore extends StandardWorkStore {

    /** Rows per {@code INSERT ... RETURNING}, so that a batch stays far below {@code max_allowed_packet}. */
    private static final int MAX_ROWS = 100;
    /** Payload characters per {@code INSERT ... RETURNING}. */
    private static final long MAX_CHARS = 1_000_000;

    private final MySqlDialect.ClaimPath path;
    private final boolean returning;
    private final Sql insertOne;
    private final Sql lockBatch;
    private final Sql candidateIds;

    MySqlWorkStore(MySqlDialect dialect, WorkTables tables, MySqlDialect.ClaimPath path, boolean returning) {
        super(dialect, tables);
        this.path = path;
        this.returning = returning;
        String claimable = " WHERE state = " + WorkTables.LIVE + " AND due_ms <= " + now
                + " ORDER BY prio DESC, due_ms, id";
        insertOne = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " VALUES (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")");
        lockBatch = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + ", " + now + " AS now_ms FROM " + t.jobs() + claimable
                + " LIMIT :n FOR UPDATE SKIP LOCKED");
        candidateIds = Sql.of("SELECT id FROM " + t.jobs() + claimable + " LIMIT :n");
    }

    // ---------------------------------------------------------------- enqueue

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        if (returning) {
            List<List<Integer>> chunks = chunks(payloads);
            SqlOp<long[]> body = c -> {
                long[] ids = new long[payloads.size()];
                for (List<Integer> chunk : chunks) {
                    insertReturning(c, payloads, chunk, priority, delayMs, ids);
                }
                return ids;
            };
            return chunks.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
        }
        if (payloads.size() == 1) {
            return SqlOp.statement(c -> {
                try (PreparedStatement ps = c.prepareStatement(insertOne.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                    dialect.bind(insertOne, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                            .set("delay", delayMs).done();
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        if (!keys.next()) {
                            throw new SQLException("the driver returned no generated id for " + t.jobs());
                        }
                        return new long[] {keys.getLong(1)};
                    }
                }
            });
        }
        return super.enqueue(payloads, priority, delayMs);
    }

    private static List<List<Integer>> chunks(List<String> payloads) {
        List<List<Integer>> chunks = new ArrayList<>();
        List<Integer> chunk = new ArrayList<>();
        long chars = 0;
        for (int i = 0; i < payloads.size(); i++) {
            if (!chunk.isEmpty() && (chunk.size() == MAX_ROWS || chars + payloads.get(i).length() > MAX_CHARS)) {
                chunks.add(chunk);
                chunk = new ArrayList<>();
                chars = 0;
            }
            chunk.add(i);
            chars += payloads.get(i).length();
        }
        chunks.add(chunk);
        return chunks;
    }

    private void insertReturning(Connection c, List<String> payloads, List<Integer> rows, int priority, long delayMs,
                                 long[] ids) throws SQLException {
        StringBuilder text = new StringBuilder("INSERT INTO ").append(t.jobs())
                .append(" (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ");
        for (int r = 0; r < rows.size(); r++) {
            text.append(r == 0 ? "" : ", ").append("(:payload").append(r).append(", :prio, ").append(WorkTables.LIVE)
                    .append(", ").append(now).append(" + :delay, 0, ").append(now).append(')');
        }
        Sql sql = Sql.of(text.append(" RETURNING id").toString());
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = dialect.bind(sql, ps).setInt("prio", priority).set("delay", delayMs);
            for (int r = 0; r < rows.size(); r++) {
                b.set("payload" + r, payloads.get(rows.get(r)));
            }
            b.done();
            // execute(), not executeQuery(): MySQL Connector/J refuses executeQuery() for a statement that does not
            // start with SELECT, even though MariaDB answers INSERT ... RETURNING with a result set
            if (!ps.execute()) {
                throw new SQLException("INSERT ... RETURNING returned no result set for " + t.jobs());
            }
            try (ResultSet rs = ps.getResultSet()) {
                for (int r = 0; r < rows.size(); r++) {
                    if (!rs.next()) {
                        throw new SQLException("INSERT ... RETURNING returned " + r + " ids for " + rows.size()
                                + " rows of " + t.jobs());
                    }
                    ids[rows.get(r)] = rs.getLong(1);
                }
            }
        }
    }

    // ---------------------------------------------------------------- claim

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        return path == MySqlDialect.ClaimPath.SKIP_LOCKED
                ? SqlOp.transaction(c -> claimSkipLocked(c, max, leaseMs, token))
                : SqlOp.transaction(c -> claimByLastInsertId(c, max, leaseMs, token));
    }

    /** A job as locked by the candidate query, with the server time the query ran at. */
    private record Locked(long id, String payload, int prio, int attempts, long enqueuedMs, String lastError,
                          boolean leasedBefore, long nowMs) {
    }

    private List<Job> claimSkipLocked(Connection c, int max, long leaseMs, long token) throws SQLException {
        List<Locked> locked = new ArrayList<>();
        try (PreparedStatement ps = lockBatch.prepare(c)) {
            dialect.bind(lockBatch, ps).setInt("n", max).done();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rs.getLong("lease_token");
                    boolean leasedBefore = !rs.wasNull();
                    locked.add(new Locked(rs.getLong("id"), Jdbc.text(rs.getString("payload")), rs.getInt("prio"),
                            rs.getInt("attempts"), rs.getLong("enqueued_ms"), rs.getString("last_error"),
                            leasedBefore, rs.getLong("now_ms")));
                }
            }
        }
        if (locked.isEmpty()) {
            return List.of();
        }
        long until = locked.get(0).nowMs() + leaseMs;
        List<Long> ids = locked.stream().map(Locked::id).toList();
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0"
                + " ELSE 1 END, lease_token = :token, due_ms = :until WHERE id IN ("
                + Jdbc.parameterList(ids.size(), "id") + ")");
        int leased;
        try (PreparedStatement ps = lease.prepare(c)) {
            Jdbc.bindList(dialect.bind(lease, ps).set("token", token).set("until", until), "id", ids).done();
            leased = ps.executeUpdate();
        }
        if (leased != ids.size()) {
            throw new SQLException("leased " + leased + " of " + ids.size() + " jobs of " + t.jobs()
                    + " locked with FOR UPDATE SKIP LOCKED; is the table an InnoDB table?");
        }
        List<Job> jobs = new ArrayList<>(locked.size());
        for (Locked j : locked) {
            jobs.add(new Job(j.id(), j.payload(), j.prio(), j.attempts() + (j.leasedBefore() ? 1 : 0),
                    Instant.ofEpochMilli(j.enqueuedMs()), Instant.ofEpochMilli(until), j.lastError(), token));
        }
        return jobs;
    }

    private List<Job> claimByLastInsertId(Connection c, int max, long leaseMs, long token) throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (int round = 0; round < CLAIM_ROUNDS && ids.size() < max; round++) {
            List<Long> candidates = select(c, candidateIds, max - ids.size(), -1);
            if (candidates.isEmpty()) {
                break;
            }
            int before = ids.size();
            Sql claim = claimOneOf(candidates.size());
            try (PreparedStatement ps = c.prepareStatement(claim.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                while (ids.size() - before < candidates.size()) {
                    Jdbc.bindList(dialect.bind(claim, ps).set("token", token).set("lease", leaseMs), "id",
                            candidates).done();
                    if (ps.executeUpdate() == 0) {
                        break; // nothing left to claim: LAST_INSERT_ID() still holds an older value, do not read it
                    }
                    ids.add(LastInsertId.read(c, ps));
                }
            }
            if (ids.size() - before == candidates.size()) {
                break; // no race lost
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        Sql read = Sql.of("SELECT " + Jdbc.JOB_COLUMNS + " FROM " + t.jobs() + " WHERE id IN ("
                + Jdbc.parameterList(ids.size(), "id") + ") AND lease_token = :token");
        try (PreparedStatement ps = read.prepare(c)) {
            Jdbc.bindList(dialect.bind(read, ps).set("token", token), "id", ids).done();
            return inOrder(Jdbc.jobs(ps), ids);
        }
    }

    /**
     * Seed 001's claim, bounded to candidates: the primary key is forced so that the statement locks only rows a
     * consistent read saw committed and claimable, never an uncommitted job of an open transaction (a transactional
     * outbox), which a scan of the claim index would wait for.
     *
     * @param candidates the number of candidate ids
     * @return the statement
     */
    Sql claimOneOf(int candidates) {
        return Sql.of("UPDATE " + t.jobs() + " FORCE INDEX (PRIMARY) SET attempts = attempts + CASE WHEN lease_token"
                + " IS NULL THEN 0 ELSE 1 END, lease_token = :token, due_ms = " + now + " + :lease,"
                + " id = LAST_INSERT_ID(id) WHERE id IN (" + Jdbc.parameterList(candidates, "id") + ") AND state = "
                + WorkTables.LIVE + " AND due_ms <= " + now + " ORDER BY prio DESC, due_ms, id LIMIT 1");
    }

}
