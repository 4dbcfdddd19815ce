package dev.rowqueue.mysql;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.StandardCounterStore;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * Counters in one statement, the technique of the MySQL Cookbook's recipe "Using Single-Row Sequence Generators":
 * {@code LAST_INSERT_ID(expr)} sets the new value and hands it back
 * as the statement's insert id, which the driver returns as the generated key.
 *
 * <pre>{@code
 * INSERT INTO c (counter_key, counter_value) VALUES (:key, CAST(LAST_INSERT_ID(CAST(:delta AS SIGNED)) AS SIGNED))
 * ON DUPLICATE KEY UPDATE counter_value = CAST(LAST_INSERT_ID(counter_value + CAST(:delta AS SIGNED)) AS SIGNED)
 * }</pre>
 *
 * <p>The first use creates the row, every other one increments it, atomically under the row lock. The casts matter:
 * {@code LAST_INSERT_ID()} returns BIGINT UNSIGNED, so a negative value stored uncast is out of range (or clipped
 * outside strict mode); the delta is cast so that even {@code Long.MIN_VALUE} is signed BIGINT arithmetic. An
 * increment that would leave the 64-bit range fails with error 1690 inside the server and changes nothing.
 */
final class MySqlCounterStore extends StandardCounterStore {

    private final Sql add;
    private final Sql set;

    MySqlCounterStore(MySqlDialect dialect, CounterTable table) {
        super(dialect, table);
        String delta = "CAST(:delta AS SIGNED)";
        add = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, CAST(LAST_INSERT_ID("
                + delta + ") AS SIGNED)) ON DUPLICATE KEY UPDATE counter_value = CAST(LAST_INSERT_ID(counter_value + "
                + delta + ") AS SIGNED)");
        set = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, CAST(:value AS SIGNED))"
                + " ON DUPLICATE KEY UPDATE counter_value = CAST(:value AS SIGNED)");
    }

    @Override
    public SqlOp<OptionalLong> add(String key, long delta) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = c.prepareStatement(add.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                dialect.bind(add, ps).set("key", key).set("delta", delta).done();
                ps.executeUpdate();
                return OptionalLong.of(LastInsertId.read(c, ps));
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                    return OptionalLong.empty();
                }
                throw e;
            }
        });
    }

    @Override
    public SqlOp<Void> set(String key, long value) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = set.prepare(c)) {
                dialect.bind(set, ps).set("key", key).set("value", value).done();
                ps.executeUpdate();
                return null;
            }
        });
    }
}
