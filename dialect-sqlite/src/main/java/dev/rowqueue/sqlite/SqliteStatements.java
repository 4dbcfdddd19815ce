package dev.rowqueue.sqlite;

import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.JobRules;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.StatementSets;
import dev.rowqueue.support.WorkStatements;

/**
 * SQLite's statements: upserts and {@code RETURNING}. A writing statement takes the write lock when it starts, and a
 * transaction begins {@code IMMEDIATE} ({@link SqliteDialect#beginTransaction}), so no other writer runs between a
 * transaction's reads and its writes.
 */
final class SqliteStatements implements StatementSets {

    /** The one instance. */
    static final SqliteStatements SETS = new SqliteStatements();

    /**
     * Counters in one statement each. An increment creates or adds and returns the new value; when the sum would leave
     * the 64-bit range (SQLite would turn it into a floating point value) the row is left alone and nothing returned.
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        String insert = "INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, ";
        Sql add = Sql.of(insert + ":delta) ON CONFLICT (counter_key) DO UPDATE SET counter_value = counter_value"
                + " + excluded.counter_value WHERE counter_value BETWEEN :lo AND :hi RETURNING counter_value");
        Sql set = Sql.of(insert + ":value) ON CONFLICT (counter_key) DO UPDATE SET counter_value ="
                + " excluded.counter_value");
        return CounterStatements.PORTABLE.withAdd(add).withSet(set);
    }

    /**
     * The safe ring only: the portable push (bump the head row, write the slots) with each step one upsert; past
     * {@link Long#MAX_VALUE} the bump's guard returns nothing (an exhausted sequence). Newest-first reads count the
     * last {@code :limit} numbers down from the head row's in a recursive CTE: a primary-key lookup per slot.
     */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        String last = "(SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)";
        if (strategy != RingStrategy.SAFE) {
            return null;
        }
        Sql bump = Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, :n) ON CONFLICT (grp) DO UPDATE"
                + " SET last_seq = last_seq + excluded.last_seq WHERE last_seq <= :max RETURNING last_seq");
        Sql upsert = Sql.of("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) VALUES (:grp, :slot,"
                + " :seq, :payload, " + now + ") ON CONFLICT (grp, slot) DO UPDATE SET seq = excluded.seq,"
                + " payload = excluded.payload, pushed_ms = excluded.pushed_ms");
        Sql newestByHead = Sql.of("WITH RECURSIVE s(seq, k) AS (SELECT " + last + ", 1 UNION ALL SELECT seq - 1,"
                + " k + 1 FROM s WHERE k < :limit AND seq > 1) SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries()
                + " WHERE grp = :grp AND slot IN (SELECT seq % :cap FROM s) AND seq > " + last + " - :limit"
                + " ORDER BY seq DESC");
        return RingStatements.PORTABLE.withBump(bump).withUpsert(upsert).withNewestByHead(newestByHead);
    }

    /**
     * The work queue. A claim ({@link SqliteWorkForms}) reads the ids of claimable jobs in claim order without a lock,
     * so a claim that finds nothing neither waits for writers nor keeps them waiting, then leases them with one
     * {@code UPDATE ... WHERE id IN (...) AND <claimable> RETURNING ...} in auto-commit mode: the statement takes the
     * write lock before it reads, and its claimability test keeps a job another claimer took meanwhile from being
     * leased twice. The test is written {@code state + 0 = 0 AND due_ms + 0 <= <now>}
     * ({@link JobRules#claimableById}): as {@code state = 0 ...} SQLite's planner took the claim index over the
     * primary key for two ids or more and walked every live job. An enqueue, the rotation cursor and a rotation lease are one statement each ({@code RETURNING}, an
     * upsert).
     */
    @Override
    public WorkStatements work(WorkTables t, String now) {
        String lease = " SET " + JobRules.lease(now);
        Sql enqueueOne = Sql.of("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " VALUES (:payload, :prio, " + WorkTables.LIVE + ", " + now + " + :delay, 0, " + now + ")"
                + " RETURNING id");
        Sql cursor = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)"
                + " ON CONFLICT (cursor_name) DO UPDATE SET last_id = last_id RETURNING last_id");
        return WorkStatements.PORTABLE.withEnqueueOne(enqueueOne)
                .withCursor(cursor)
                .withLeaseReturning("UPDATE " + t.jobs() + lease + " WHERE id IN (" + WorkStatements.IDS + ") AND "
                        + JobRules.claimableById(now) + " RETURNING " + Jdbc.JOB_COLUMNS)
                .withForms(SqliteWorkForms::new);
    }
}
