package dev.rowqueue.sqlite;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardCounterStore;

import java.util.OptionalLong;

/**
 * Counters in one statement each, in auto-commit mode (a writing statement takes SQLite's write lock when it starts,
 * waiting up to the busy timeout). An increment creates the counter at {@code delta} or adds to it, and returns the
 * new value; when the guard fails (the sum would leave the 64-bit range, which SQLite would turn into a floating
 * point value) the row is left alone and nothing is returned.
 */
final class SqliteCounterStore extends StandardCounterStore {

    private final Sql add;
    private final Sql set;

    SqliteCounterStore(Dialect dialect, CounterTable table) {
        super(dialect, table);
        String insert = "INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, ";
        add = Sql.of(insert + ":delta) ON CONFLICT (counter_key) DO UPDATE SET counter_value = counter_value"
                + " + excluded.counter_value WHERE counter_value BETWEEN :lo AND :hi RETURNING counter_value");
        set = Sql.of(insert + ":value) ON CONFLICT (counter_key) DO UPDATE SET counter_value = excluded.counter_value");
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
