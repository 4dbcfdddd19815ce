package dev.rowqueue.db2;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.StandardCounterStore;
import dev.rowqueue.support.CounterStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Counters on Db2 through data change table references. An increment is
 * {@code SELECT counter_value FROM FINAL TABLE (UPDATE ... WHERE counter_key = ? AND counter_value BETWEEN ? AND ?)}:
 * one statement, one round trip, for an existing counter. A new counter is created with
 * {@code SELECT ... FROM FINAL TABLE (INSERT ...)}; if another caller created it first (SQLCODE -803), the guarded
 * update runs once more. Every statement is atomic on its own, in auto-commit mode; no row from the guarded update
 * of an existing counter means the increment would leave the 64-bit range, and nothing changed. {@code set} is one
 * {@code MERGE}, retried after a lost creation race.
 */
final class Db2CounterStore extends StandardCounterStore {

    private final Sql add;
    private final Sql create;
    private final Sql set;

    Db2CounterStore(Db2Dialect dialect, CounterTable table) {
        this(dialect, table, Sql.of("MERGE INTO " + table.table() + " c USING (VALUES (CAST(:key AS "
                + Db2Keys.COLUMN_TYPE + "), CAST(:value AS BIGINT))) AS s (k, v) ON c.counter_key = s.k"
                + " WHEN MATCHED THEN UPDATE SET counter_value = s.v"
                + " WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.v)"));
    }

    private Db2CounterStore(Db2Dialect dialect, CounterTable table, Sql set) {
        super(dialect, table, CounterStatements.PORTABLE.withSet(set));
        this.set = set;
        add = Sql.of("SELECT counter_value FROM FINAL TABLE (UPDATE " + t.table() + " SET counter_value ="
                + " counter_value + :delta WHERE counter_key = :key AND counter_value BETWEEN :lo AND :hi)");
        create = Sql.of("SELECT counter_value FROM FINAL TABLE (INSERT INTO " + t.table()
                + " (counter_key, counter_value) VALUES (:key, :delta))");
    }

    /** @return the statements this store renders, for tests */
    List<Sql> statements() {
        return List.of(add, create, set);
    }

    @Override
    public SqlOp<OptionalLong> add(String key, long delta) {
        long[] range = guard(delta);
        return SqlOp.statement(c -> {
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
        });
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
