package dev.rowqueue.postgres;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardCounterStore;

import java.util.OptionalLong;

/**
 * Counters in one statement each. An increment is
 * {@code INSERT ... VALUES (:key, :delta) ON CONFLICT (counter_key) DO UPDATE SET counter_value = counter_value +
 * EXCLUDED.counter_value WHERE counter_value BETWEEN :lo AND :hi RETURNING counter_value}: a new counter is created
 * at {@code delta}; an existing one is locked and incremented unless the guard fails, and then the statement returns
 * no row and changes nothing (the increment would leave the 64-bit range).
 */
final class PostgresCounterStore extends StandardCounterStore {

    private final Sql add;
    private final Sql set;

    PostgresCounterStore(PostgresDialect dialect, CounterTable table) {
        super(dialect, table);
        add = Sql.of("INSERT INTO " + t.table() + " AS c (counter_key, counter_value) VALUES (:key, :delta)"
                + " ON CONFLICT (counter_key) DO UPDATE SET counter_value = c.counter_value + EXCLUDED.counter_value"
                + " WHERE c.counter_value BETWEEN :lo AND :hi RETURNING counter_value");
        set = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, :value)"
                + " ON CONFLICT (counter_key) DO UPDATE SET counter_value = EXCLUDED.counter_value");
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
