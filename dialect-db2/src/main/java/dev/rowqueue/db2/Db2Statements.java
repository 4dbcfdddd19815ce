package dev.rowqueue.db2;

import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.WorkStatements;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.OptionalLong;

/** Db2's statements for rings and counters: data change table references ({@code FINAL TABLE}) and {@code MERGE}. */
final class Db2Statements implements StatementSets {

    private final Db2Dialect dialect;

    Db2Statements(Db2Dialect dialect) {
        this.dialect = dialect;
    }

    /** The work queue's hooks: {@link Db2WorkForms}. */
    @Override
    public WorkStatements work(WorkTables tables, String now) {
        return WorkStatements.PORTABLE.withForms(portable -> new Db2WorkForms(dialect, tables, portable));
    }

    /**
     * The safe ring: the head row is bumped and read in one statement, {@code SELECT last_seq FROM FINAL TABLE
     * (UPDATE ...)}, which locks it until commit; a missing head row is inserted under a savepoint and a lost creation
     * race (SQLCODE -803) updates the row the winner created (the portable path). The slots are written with one
     * batched {@code MERGE}. Two statements per push, in one transaction at cursor stability.
     *
     * <p>The single-writer ring is the single {@code MERGE} of Baron Schwartz's "How to implement a queue in SQL":
     * the source reads the group's {@code MAX(seq) + 1}, the target row is slot {@code MOD(seq, capacity)}. Db2 LUW
     * cannot select from a MERGE, so the store reads the last number afterwards; a number past {@code Long.MAX_VALUE}
     * is an overflow (SQLCODE -802).
     */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        return switch (strategy) {
            case SAFE -> RingStatements.PORTABLE
                    .withBump(Sql.of("SELECT last_seq FROM FINAL TABLE (UPDATE " + t.heads() + " SET last_seq ="
                            + " last_seq + :n WHERE grp = :grp AND last_seq <= :max)"))
                    .withUpsert(Sql.of("MERGE INTO " + t.entries() + " e USING (VALUES (CAST(:grp AS "
                            + Db2Keys.COLUMN_TYPE + "), CAST(:slot AS INTEGER), CAST(:seq AS BIGINT), CAST(:payload AS "
                            + dialect.typeOf(Schema.Type.PAYLOAD) + "))) AS s (grp, slot, seq, payload) ON e.grp = s.grp"
                            + " AND e.slot = s.slot WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = s.payload,"
                            + " pushed_ms = " + now + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                            + " VALUES (s.grp, s.slot, s.seq, s.payload, " + now + ")"));
            case SINGLE_WRITER -> RingStatements.PORTABLE.withSingleWriterMerge(Sql.of("MERGE INTO " + t.entries()
                    + " e USING (SELECT CAST(:grp AS " + Db2Keys.COLUMN_TYPE + ") AS grp, COALESCE(MAX(seq), 0) + 1 AS"
                    + " seq FROM " + t.entries() + " WHERE grp = :grp) s ON e.grp = s.grp AND e.slot = MOD(s.seq,"
                    + " CAST(:cap AS INTEGER)) WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = :payload,"
                    + " pushed_ms = " + now + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                    + " VALUES (s.grp, MOD(s.seq, CAST(:cap AS INTEGER)), s.seq, :payload, " + now + ")"));
            case TRIGGER -> null;
        };
    }

    /**
     * Counters through data change table references. An increment is
     * {@code SELECT counter_value FROM FINAL TABLE (UPDATE ... WHERE counter_key = ? AND counter_value BETWEEN ? AND
     * ?)}: one statement, one round trip, for an existing counter. A new counter is created with
     * {@code SELECT ... FROM FINAL TABLE (INSERT ...)}; if another caller created it first (SQLCODE -803), the guarded
     * update runs once more. Every statement is atomic on its own, in auto-commit mode; no row from the guarded update
     * of an existing counter means the increment would leave the 64-bit range, and nothing changed. {@code set} is
     * one {@code MERGE}, retried after a lost creation race.
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        Sql add = Sql.of("SELECT counter_value FROM FINAL TABLE (UPDATE " + t.table() + " SET counter_value ="
                + " counter_value + :delta WHERE counter_key = :key AND counter_value BETWEEN :lo AND :hi)");
        Sql create = Sql.of("SELECT counter_value FROM FINAL TABLE (INSERT INTO " + t.table()
                + " (counter_key, counter_value) VALUES (:key, :delta))");
        return CounterStatements.PORTABLE
                .withAdd((c, key, delta) -> add(c, add, create, key, delta))
                .withSet(Sql.of("MERGE INTO " + t.table() + " c USING (VALUES (CAST(:key AS " + Db2Keys.COLUMN_TYPE
                        + "), CAST(:value AS BIGINT))) AS s (k, v) ON c.counter_key = s.k"
                        + " WHEN MATCHED THEN UPDATE SET counter_value = s.v"
                        + " WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.v)"));
    }

    private OptionalLong add(Connection c, Sql add, Sql create, String key, long delta) throws SQLException {
        long[] range = CounterStatements.guard(delta);
        OptionalLong value = run(c, add, key, delta, range);
        if (value.isPresent()) {
            return value;
        }
        try {
            return run(c, create, key, delta, null);
        } catch (SQLException e) {
            if (dialect.classify(e) != SqlErrorKind.DUPLICATE_KEY) {
                throw e;
            }
            return run(c, add, key, delta, range); // exists: created concurrently, or out of range (empty)
        }
    }

    private OptionalLong run(Connection c, Sql sql, String key, long delta, long[] range) throws SQLException {
        try (PreparedStatement ps = sql.prepare(c)) {
            var b = dialect.bind(sql, ps).set("key", key).set("delta", delta);
            if (range != null) {
                b.set("lo", range[0]).set("hi", range[1]);
            }
            b.done();
            return Jdbc.firstLong(ps);
        }
    }
}
