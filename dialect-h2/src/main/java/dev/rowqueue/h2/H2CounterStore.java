package dev.rowqueue.h2;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardCounterStore;

import java.util.OptionalLong;

/**
 * Counters on H2 in one statement: {@code SELECT counter_value FROM FINAL TABLE (MERGE ...)} creates or increments
 * and returns the new value. The guard in {@code WHEN MATCHED AND ...} leaves an overflowing counter unchanged, and
 * then the statement returns no row.
 */
final class H2CounterStore extends StandardCounterStore {

    private final Sql add;
    private final Sql set;

    H2CounterStore(Dialect dialect, CounterTable table) {
        super(dialect, table);
        add = Sql.of("SELECT counter_value FROM FINAL TABLE (MERGE INTO " + t.table() + " c USING (VALUES (CAST(:key AS"
                + " VARCHAR(" + Dialect.KEY_LENGTH + ")), CAST(:delta AS BIGINT))) s (k, d) ON (c.counter_key = s.k)"
                + " WHEN MATCHED AND c.counter_value BETWEEN :lo AND :hi THEN UPDATE SET counter_value = c.counter_value + s.d"
                + " WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.d))");
        set = Sql.of("MERGE INTO " + t.table() + " (counter_key, counter_value) KEY (counter_key) VALUES (:key, :value)");
    }

    @Override
    public SqlOp<OptionalLong> add(String key, long delta) {
        return addInOneStatement(add, key, delta);
    }

    @Override
    public SqlOp<Void> set(String key, long value) {
        return setInOneStatement(set, key, value);
    }
}
