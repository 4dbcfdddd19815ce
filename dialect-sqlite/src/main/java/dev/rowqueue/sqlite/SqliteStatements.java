package dev.rowqueue.sqlite;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.WorkStatements;

/**
 * SQLite's statements: upserts ({@code INSERT ... ON CONFLICT DO UPDATE}) and {@code RETURNING}. A writing statement
 * takes the database's write lock when it starts (waiting up to the busy timeout), and a transaction begins
 * {@code IMMEDIATE} ({@link SqliteDialect#beginTransaction}), holding the write lock from its start, so no other
 * writer, in this process or another, runs between a transaction's reads and its writes.
 */
final class SqliteStatements {

    private SqliteStatements() {
    }

    /**
     * Counters in one statement each, in auto-commit mode. An increment creates the counter at {@code delta} or adds
     * to it, and returns the new value; when the guard fails (the sum would leave the 64-bit range, which SQLite
     * would turn into a floating point value) the row is left alone and nothing is returned.
     */
    static CounterStatements counters(CounterTable t) {
        String insert = "INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, ";
        return new CounterStatements(Sql.of(insert + ":delta) ON CONFLICT (counter_key) DO UPDATE SET counter_value ="
                + " counter_value + excluded.counter_value WHERE counter_value BETWEEN :lo AND :hi"
                + " RETURNING counter_value"),
                Sql.of(insert + ":value) ON CONFLICT (counter_key) DO UPDATE SET counter_value ="
                        + " excluded.counter_value"));
    }

    /**
     * The safe ring: the portable push (one {@code IMMEDIATE} transaction: bump the head row, write the slots), each
     * step one upsert, the slots of a push of several payloads as one batch. When the numbers would pass
     * {@link Long#MAX_VALUE}, the bump's guard leaves the head row alone and returns nothing, and the portable path
     * reports the exhausted sequence. Newest-first reads count the last {@code :limit} numbers down from the head
     * row's with a recursive common table expression: a primary-key lookup per slot (these rings have no
     * {@code (grp, seq)} index, {@link SqliteDialect#ddl()}).
     */
    static RingStatements ring(RingTables t, String now) {
        String last = "(SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)";
        return new RingStatements(
                Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, :n) ON CONFLICT (grp) DO UPDATE"
                        + " SET last_seq = last_seq + excluded.last_seq WHERE last_seq <= :max RETURNING last_seq"),
                Sql.of("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) VALUES (:grp, :slot,"
                        + " :seq, :payload, " + now + ") ON CONFLICT (grp, slot) DO UPDATE SET seq = excluded.seq,"
                        + " payload = excluded.payload, pushed_ms = excluded.pushed_ms"),
                null,
                Sql.of("WITH RECURSIVE s(seq, k) AS (SELECT " + last + ", 1 UNION ALL SELECT seq - 1, k + 1 FROM s"
                        + " WHERE k < :limit AND seq > 1) SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries()
                        + " WHERE grp = :grp AND slot IN (SELECT seq % :cap FROM s) AND seq > " + last + " - :limit"
                        + " ORDER BY seq DESC"),
                null);
    }

    /**
     * The work queue. A claim is one statement in auto-commit mode:
     *
     * <pre>{@code
     * WITH c AS MATERIALIZED (SELECT id AS claim_id, due_ms AS due_before FROM <queue>
     *                         WHERE state = 0 AND due_ms <= :now ORDER BY prio DESC, due_ms, id LIMIT :n)
     * UPDATE <queue> SET attempts = ..., lease_token = :token, due_ms = :now + :lease
     * WHERE id IN (SELECT claim_id FROM c)
     * RETURNING <job columns>, (SELECT due_before FROM c WHERE claim_id = id) AS claimed_due
     * }</pre>
     *
     * It runs only if a read without a lock ({@code SELECT 1 ... LIMIT 1}) finds a claimable job: a claim that finds
     * nothing must neither wait for writers nor keep them waiting (blocking claims poll with it). A writing statement
     * takes the write lock before it reads, so no job is leased twice and there are no row locks to skip. The common
     * table expression is {@code MATERIALIZED}: computed once, before the update changes the rows it reads, so
     * {@code RETURNING} finds in it the due time each job had before its lease. Enqueueing one job is one
     * {@code INSERT ... RETURNING id}; the rotation cursor is created and read with one upsert, and rotation
     * candidates are leased and read back with one {@code UPDATE ... RETURNING}.
     */
    static WorkStatements work(WorkTables t, String now) {
        String due = "state = " + WorkTables.LIVE + " AND due_ms <= " + now;
        String lease = " SET attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END,"
                + " lease_token = :token, due_ms = " + now + " + :lease";
        return new WorkStatements(
                Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES"
                        + " (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")"
                        + " RETURNING id"),
                Sql.of("SELECT 1 FROM " + t.jobs() + " WHERE " + due + " LIMIT 1"),
                Sql.of("WITH c AS MATERIALIZED (SELECT id AS claim_id, due_ms AS due_before FROM " + t.jobs()
                        + " WHERE " + due + " ORDER BY prio DESC, due_ms, id LIMIT :n) UPDATE " + t.jobs() + lease
                        + " WHERE id IN (SELECT claim_id FROM c) RETURNING " + Jdbc.JOB_COLUMNS
                        + ", (SELECT due_before FROM c WHERE claim_id = id) AS claimed_due"),
                Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)"
                        + " ON CONFLICT (cursor_name) DO UPDATE SET last_id = last_id RETURNING last_id"),
                "UPDATE " + t.jobs() + lease + " WHERE id IN (" + WorkStatements.IDS + ") AND " + due
                        + " RETURNING " + Jdbc.JOB_COLUMNS,
                null);
    }
}
