package dev.rowqueue.postgres;

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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The work queue on PostgreSQL. A claim is one statement:
 *
 * <pre>{@code
 * WITH c AS MATERIALIZED (SELECT id, due_ms FROM <queue> WHERE state = 0 AND due_ms <= <now>
 *                         ORDER BY prio DESC, due_ms, id LIMIT :n FOR UPDATE SKIP LOCKED)
 * UPDATE <queue> q SET attempts = ..., lease_token = :token, due_ms = <now> + :lease
 * WHERE q.id = ANY(ARRAY(SELECT id FROM c)) RETURNING q.*, (SELECT c.due_ms FROM c WHERE c.id = q.id)
 * }</pre>
 *
 * The candidates are locked as they are found and other consumers skip them, so no claim waits for another and none
 * leases a job twice. The CTE is materialized (explicitly from PostgreSQL 12 on, always before) so its locking query
 * runs exactly once. The update finds the locked jobs through the primary key with {@code = ANY(ARRAY(...))}, not by
 * joining the CTE: a join is planned without knowing {@code :n}, and once pgjdbc's statement is prepared on the server
 * PostgreSQL may switch to a generic plan that hashes the whole queue table for the join, so that a claim's cost grows
 * with the queue (docs/postgresql.md, "Claim"; {@code PostgresGenericPlanTest}). {@code RETURNING} has no order: the
 * jobs are sorted back into claim order with the due time each had before the lease. The claim walks the partial index
 * {@code (prio DESC, due_ms, id) WHERE state = 0}, so dead jobs cost it nothing.
 *
 * <p>Enqueue is one statement: {@code INSERT ... VALUES (...) RETURNING id} for one job, {@code INSERT ... SELECT
 * FROM unnest(:payloads) ... RETURNING id} for a batch; enqueue,
 * nack, release and revive send {@code pg_notify('rowqueue_<queue>', <delay ms>)} in the same statement when the
 * dialect notifies (option {@code notify}, on by default), so the notification is delivered exactly when the work
 * commits.
 */
final class PostgresWorkStore extends StandardWorkStore {

    /**
     * The liveness test of statements on one job found by its primary key: {@code state + 0 = 0}, the same test,
     * which the planner cannot match with the partial claim index's {@code WHERE state = 0}. With {@code state = 0},
     * a new queue's generic plan (no statistics yet; pgjdbc prepares a statement on the server from its fifth
     * execution) looked for acked jobs by scanning the whole claim index instead of reading the primary key, at a cost
     * that grows with the queue (docs/postgresql.md, "Ack and claim"; {@code PostgresGenericPlanTest}).
     */
    static final String LIVE_BY_ID = "state + 0 = " + WorkTables.LIVE;

    private final String channel;
    private final Sql enqueue;
    private final Sql enqueueOne;
    private final Sql claim;
    private final Sql ackOneAndClaim;
    private final Sql ackManyAndClaim;
    private final Sql nack;
    private final Sql release;
    private final Sql reviveOne;
    private final Sql reviveAll;
    private final Sql cursor;

    PostgresWorkStore(PostgresDialect dialect, WorkTables tables, boolean notify) {
        super(dialect, tables, ById.standard(tables).withLive(LIVE_BY_ID));
        this.channel = PostgresDialect.channel(tables);
        String live = "state = " + WorkTables.LIVE;
        String jobs = t.jobs();
        String insert = "INSERT INTO " + jobs + " (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " SELECT p.payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + " FROM "
                + PgArrays.payloadRows("payloads") + " ORDER BY p.ord RETURNING id";
        enqueue = Sql.of(notify
                ? "WITH ins AS (" + insert + "), note AS (SELECT pg_notify(:channel, CAST(:delay AS TEXT)) AS sent)"
                        + " SELECT ins.id FROM ins CROSS JOIN note ORDER BY ins.id"
                : "WITH ins AS (" + insert + ") SELECT id FROM ins ORDER BY id");
        String insertOne = "INSERT INTO " + jobs + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES"
                + " (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ") RETURNING id";
        enqueueOne = Sql.of(notify
                ? "WITH ins AS (" + insertOne + "), note AS (SELECT pg_notify(:channel, CAST(:delay AS TEXT)) AS sent)"
                        + " SELECT ins.id FROM ins CROSS JOIN note"
                : insertOne);
        String materialized = dialect.hasMaterializedCte() ? "MATERIALIZED " : "";
        String lock = "SELECT id, due_ms FROM " + jobs + " WHERE " + live + " AND due_ms <= " + now + "%s"
                + " ORDER BY prio DESC, due_ms, id LIMIT :n FOR UPDATE SKIP LOCKED";
        String lease = "UPDATE " + jobs + " q SET attempts = q.attempts + CASE WHEN q.lease_token IS NULL THEN 0"
                + " ELSE 1 END, lease_token = :token, due_ms = " + now + " + :lease WHERE q.id = ANY(ARRAY(SELECT id FROM c))"
                + " RETURNING " + qualified("q") + ", (SELECT c.due_ms FROM c WHERE c.id = q.id) AS claimed_due";
        claim = Sql.of("WITH c AS " + materialized + "(" + lock.formatted("") + ") " + lease);
        // ack and claim: the acked rows are excluded from the claim, since all parts of one statement see the same
        // snapshot (an acked job whose lease had ended would otherwise look claimable); the acked ids come back as
        // rows with claimed = FALSE
        StringBuilder nulls = new StringBuilder(); // the job columns but id, and claimed_due, named as u's
        for (String column : Jdbc.JOB_COLUMNS.split(",\\s*")) {
            nulls.append(column.equals("id") ? "" : ", NULL AS " + column);
        }
        nulls.append(", NULL AS claimed_due");
        // the acks' branch comes first: the DELETE runs to its end before the claim locks anything, so a statement
        // waits for a row lock only while it holds none of its claim's (no lock-order cycle between consumers)
        String handoff = " SELECT FALSE AS claimed, a.id" + nulls + " FROM a UNION ALL SELECT TRUE, u.* FROM u";
        ackOneAndClaim = Sql.of("WITH a AS (DELETE FROM " + jobs + " WHERE id = :id AND lease_token = :tok AND "
                + byId.live()
                + " RETURNING id), c AS " + materialized + "(" + lock.formatted(" AND id <> :id") + "), u AS ("
                + lease + ")" + handoff);
        ackManyAndClaim = Sql.of("WITH a AS (DELETE FROM " + jobs + " WHERE id = ANY(CAST(:ids AS BIGINT[]))"
                + " AND lease_token = (CAST(:toks AS BIGINT[]))[array_position(CAST(:ids AS BIGINT[]), id)] AND "
                + byId.live()
                + " RETURNING id), c AS " + materialized + "(" + lock.formatted(" AND id <> ALL(CAST(:ids AS"
                + " BIGINT[]))") + "), u AS (" + lease + ")" + handoff);
        String mine = " WHERE id = :id AND lease_token = :token AND " + byId.live();
        String nackUpdate = "UPDATE " + jobs + " SET state = CASE WHEN attempts + 1 >= :max THEN " + WorkTables.DEAD
                + " ELSE " + WorkTables.LIVE + " END, attempts = attempts + 1, due_ms = " + now
                + " + :delay, last_error = :error, lease_token = NULL" + mine + " RETURNING state";
        nack = Sql.of(notify
                ? "WITH u AS (" + nackUpdate + ") SELECT u.state, CASE WHEN u.state = " + WorkTables.LIVE
                        + " THEN pg_notify(:channel, CAST(:delay AS TEXT)) END FROM u"
                : nackUpdate);
        String releaseUpdate = "UPDATE " + jobs + " SET due_ms = " + now + ", lease_token = NULL" + mine
                + " RETURNING id";
        release = Sql.of(notify ? "WITH u AS (" + releaseUpdate + ") SELECT u.id, pg_notify(:channel, '0') FROM u"
                : releaseUpdate);
        String revive = "UPDATE " + jobs + " SET state = " + WorkTables.LIVE + ", attempts = 0, due_ms = " + now
                + ", lease_token = NULL WHERE state = " + WorkTables.DEAD;
        reviveOne = Sql.of(counted(revive + " AND id = :id", notify));
        reviveAll = Sql.of(counted(revive, notify));
        cursor = Sql.of("INSERT INTO " + t.cursors() + " AS r (cursor_name, last_id) VALUES (:cursor, 0)"
                + " ON CONFLICT (cursor_name) DO UPDATE SET last_id = r.last_id RETURNING last_id");
    }

    /** Creates the cursor at 0 if missing and locks it, in one statement. */
    @Override
    protected long lockCursor(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = cursor.prepare(c)) {
            dialect.bind(cursor, ps).set("cursor", name).done();
            return Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("cursor upsert returned no row"));
        }
    }

    /** Job columns of a table alias, labelled as {@link Jdbc#job} reads them. */
    private static String qualified(String alias) {
        StringBuilder b = new StringBuilder();
        for (String column : Jdbc.JOB_COLUMNS.split(",\\s*")) {
            b.append(b.length() == 0 ? "" : ", ").append(alias).append('.').append(column);
        }
        return b.toString();
    }

    /** An update returning how many rows it changed, notifying listeners if any. */
    private static String counted(String update, boolean notify) {
        String count = "WITH u AS (" + update + " RETURNING id) SELECT n.changed";
        return notify
                ? count + ", CASE WHEN n.changed > 0 THEN pg_notify(:channel, '0') END FROM (SELECT COUNT(*) AS changed"
                        + " FROM u) n"
                : count + " FROM (SELECT COUNT(*) AS changed FROM u) n";
    }

    private Sql.Binder bind(Sql sql, PreparedStatement ps) throws SQLException {
        Sql.Binder b = dialect.bind(sql, ps);
        if (sql.has("channel")) {
            b.set("channel", channel);
        }
        return b;
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        boolean one = payloads.size() == 1;
        Sql sql = one ? enqueueOne : enqueue;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bind(sql, ps).setInt("prio", priority).set("delay", delayMs);
                if (one) {
                    b.set("payload", payloads.get(0));
                } else {
                    b.setArray("payloads", PgArrays.texts(c, payloads));
                }
                b.done();
                long[] ids = Jdbc.longs(ps).stream().mapToLong(Long::longValue).toArray();
                if (ids.length != payloads.size()) {
                    throw new SQLException("enqueue into " + t.jobs() + " returned " + ids.length + " ids for "
                            + payloads.size() + " jobs");
                }
                return ids;
            }
        });
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        return SqlOp.statement(c -> claimReturning(c, claim, max, leaseMs, token));
    }

    /** Acks and claims in one statement: a {@code DELETE} and the claim as data-modifying CTEs. */
    @Override
    public SqlOp<AckedAndClaimed> ackAndClaim(long[] ids, long[] tokens, int max, long leaseMs, long token) {
        if (ids.length == 0) {
            return super.ackAndClaim(ids, tokens, max, leaseMs, token); // the claim alone
        }
        Sql sql = ids.length == 1 ? ackOneAndClaim : ackManyAndClaim;
        return SqlOp.statement(c -> {
            List<Claimed> claimed = new ArrayList<>();
            Set<Long> acked = new HashSet<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = dialect.bind(sql, ps).setInt("n", max).set("token", token).set("lease", leaseMs);
                if (ids.length == 1) {
                    b.set("id", ids[0]).set("tok", tokens[0]);
                } else {
                    b.setArray("ids", PgArrays.longs(c, ids)).setArray("toks", PgArrays.longs(c, tokens));
                }
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getBoolean("claimed")) {
                            claimed.add(Claimed.of(rs));
                        } else {
                            acked.add(rs.getLong("id"));
                        }
                    }
                }
            }
            return new AckedAndClaimed(acked, inClaimOrder(claimed));
        });
    }

    /** Leases rotation candidates (locked by the caller's {@code FOR UPDATE SKIP LOCKED}) in one statement. */
    @Override
    protected List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        Sql lease = Sql.of("UPDATE " + t.jobs() + " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0"
                + " ELSE 1 END, lease_token = :token, due_ms = " + now + " + :lease WHERE id = ANY(CAST(:ids AS"
                + " BIGINT[])) AND state = " + WorkTables.LIVE + " AND due_ms <= " + now + " RETURNING "
                + Jdbc.JOB_COLUMNS);
        try (PreparedStatement ps = lease.prepare(c)) {
            dialect.bind(lease, ps).set("token", token).set("lease", leaseMs).setArray("ids", PgArrays.longs(c, ids))
                    .done();
            return inOrder(Jdbc.jobs(ps), ids);
        }
    }

    private SqlOp<Boolean> changesOne(Sql sql, long id, long token, Binding extra) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bind(sql, ps).set("id", id).set("token", token);
                extra.bind(b);
                b.done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    private interface Binding {
        void bind(Sql.Binder b) throws SQLException;
    }

    @Override
    public SqlOp<Boolean> nack(long id, long token, long delayMs, int maxAttempts, String error) {
        return changesOne(nack, id, token, b -> b.setInt("max", maxAttempts).set("delay", delayMs).set("error", error));
    }

    @Override
    public SqlOp<Boolean> release(long id, long token) {
        return changesOne(release, id, token, b -> { });
    }

    @Override
    public SqlOp<Integer> revive(OptionalLong id) {
        Sql sql = id.isPresent() ? reviveOne : reviveAll;
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                Sql.Binder b = bind(sql, ps);
                if (id.isPresent()) {
                    b.set("id", id.getAsLong());
                }
                b.done();
                return (int) Jdbc.firstLong(ps).orElse(0);
            }
        });
    }
}
