package dev.rowqueue.sqlite;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardWorkStore;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The work queue on SQLite. A claim is one statement in auto-commit mode:
 *
 * <pre>{@code
 * WITH c AS MATERIALIZED (SELECT id AS claim_id, due_ms AS due_before FROM <queue>
 *                         WHERE state = 0 AND due_ms <= :now ORDER BY prio DESC, due_ms, id LIMIT :n)
 * UPDATE <queue> SET attempts = ..., lease_token = :token, due_ms = :now + :lease
 * WHERE id IN (SELECT claim_id FROM c)
 * RETURNING <job columns>, (SELECT due_before FROM c WHERE claim_id = id) AS claimed_due
 * }</pre>
 *
 * It runs only if a read without a lock ({@code SELECT 1 ... LIMIT 1}) finds a claimable job: a writing statement
 * takes the database's write lock, waiting while another connection's transaction holds it, and a claim that finds
 * nothing must neither wait for writers nor keep them waiting (blocking claims poll with it). So a claim that gets
 * jobs is two statements, one that gets none is one. A writing statement takes the write lock before it reads,
 * so no other consumer, in this process or another, runs between the choice of the jobs and their lease: none is
 * leased twice, and there are no row locks to skip. The candidates are read through the claim index
 * {@code (state, prio DESC, due_ms, id)} in its order. The common table expression is {@code MATERIALIZED}:
 * computed once, before the update changes the rows it reads, so {@code RETURNING} finds in it the due time each
 * job had before its lease, and the jobs are sorted back into claim order ({@code RETURNING} has no order).
 *
 * <p>Enqueueing one job is one {@code INSERT ... RETURNING id}; the rotation cursor is created and read with one
 * upsert, and rotation candidates are leased and read back with one {@code UPDATE ... RETURNING}.
 */
final class SqliteWorkStore extends StandardWorkStore {

    private final Sql claimable;
    private final Sql claim;
    private final Sql enqueueOne;
    private final Sql cursor;

    SqliteWorkStore(Dialect dialect, WorkTables tables) {
        super(dialect, tables);
        String jobs = t.jobs();
        claimable = Sql.of("SELECT 1 FROM " + jobs + " WHERE state = " + WorkTables.LIVE + " AND due_ms <= " + now
                + " LIMIT 1");
        claim = Sql.of("WITH c AS MATERIALIZED (SELECT id AS claim_id, due_ms AS due_before FROM " + jobs + " WHERE"
                + " state = " + WorkTables.LIVE + " AND due_ms <= " + now + " ORDER BY prio DESC, due_ms, id"
                + dialect.limit("n") + ") UPDATE " + jobs + lease() + " WHERE id IN (SELECT claim_id FROM c)"
                + " RETURNING " + Jdbc.JOB_COLUMNS + ", (SELECT due_before FROM c WHERE claim_id = id) AS claimed_due");
        enqueueOne = Sql.of("INSERT INTO " + jobs + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES"
                + " (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ") RETURNING id");
        cursor = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)"
                + " ON CONFLICT (cursor_name) DO UPDATE SET last_id = last_id RETURNING last_id");
    }

    /** The SET clause of a lease (parameters {@code :token} and {@code :lease}). */
    private String lease() {
        return " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, lease_token = :token,"
                + " due_ms = " + now + " + :lease";
    }

    @Override
    public SqlOp<long[]> enqueue(List<String> payloads, int priority, long delayMs) {
        if (payloads.size() != 1) {
            return super.enqueue(payloads, priority, delayMs);
        }
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = enqueueOne.prepare(c)) {
                dialect.bind(enqueueOne, ps).set("payload", payloads.get(0)).setInt("prio", priority)
                        .set("delay", delayMs).done();
                return new long[] {Jdbc.firstLong(ps).orElseThrow(() -> new SQLException(
                        "INSERT ... RETURNING id into " + t.jobs() + " returned no id"))};
            }
        });
    }

    @Override
    public SqlOp<List<Job>> claim(int max, long leaseMs, long token) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = claimable.prepare(c)) {
                dialect.bind(claimable, ps).done();
                if (Jdbc.firstLong(ps).isEmpty()) {
                    return List.of(); // nothing to claim, and no write lock taken for it
                }
            }
            return claimReturning(c, claim, max, leaseMs, token);
        });
    }

    /** Creates the cursor at 0 if missing and reads it, in one statement. */
    @Override
    protected long lockCursor(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = cursor.prepare(c)) {
            dialect.bind(cursor, ps).set("cursor", name).done();
            return Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("cursor upsert returned no row"));
        }
    }

    /** Leases rotation candidates and reads them back in one statement. */
    @Override
    protected List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException {
        Sql sql = Sql.of("UPDATE " + t.jobs() + lease() + " WHERE id IN (" + Jdbc.parameterList(ids.size(), "id")
                + ") AND state = " + WorkTables.LIVE + " AND due_ms <= " + now + " RETURNING " + Jdbc.JOB_COLUMNS);
        try (PreparedStatement ps = sql.prepare(c)) {
            Jdbc.bindList(dialect.bind(sql, ps).set("token", token).set("lease", leaseMs), "id", ids).done();
            return inOrder(Jdbc.jobs(ps, dialect), ids);
        }
    }
}
