package dev.rowqueue.support;

import dev.rowqueue.spi.CounterStore;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The portable counters: in one transaction, a guarded {@code UPDATE ... SET counter_value = counter_value + :d}
 * (which locks the row), then a {@code SELECT} of the value this transaction wrote. A missing counter is inserted
 * under a savepoint. The guard ({@code counter_value BETWEEN :lo AND :hi}) keeps the value inside the 64-bit range
 * on every database, whatever its own overflow behaviour. A database's {@link CounterStatements} replace the increment
 * and the set with one statement each, or with code.
 */
public final class StandardCounterStore implements CounterStore {

    private final Dialect dialect;
    private final CounterTable t;

    private final Sql add;
    private final Sql select;
    private final Sql insert;
    private final Sql update;
    private final Sql delete;
    private final Sql all;
    private final CounterStatements statements;

    /**
     * @param dialect    the dialect
     * @param table      the counters table
     * @param statements the database's own statements, replacing the portable ones they name
     */
    public StandardCounterStore(Dialect dialect, CounterTable table, CounterStatements statements) {
        this.dialect = dialect;
        this.t = table;
        this.statements = statements;
        add = Sql.of("UPDATE " + t.table() + " SET counter_value = counter_value + :delta WHERE counter_key = :key"
                + " AND counter_value BETWEEN :lo AND :hi");
        select = Sql.of("SELECT counter_value FROM " + t.table() + " WHERE counter_key = :key");
        insert = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, :value)");
        update = Sql.of("UPDATE " + t.table() + " SET counter_value = :value WHERE counter_key = :key");
        delete = Sql.of("DELETE FROM " + t.table() + " WHERE counter_key = :key");
        all = Sql.of("SELECT counter_key, counter_value FROM " + t.table());
    }

    /** Runs the dialect's {@link CounterStatements#add() add}, retrying a unique-key violation. */
    private SqlOp<OptionalLong> addInOneStatement(Sql sql, String key, long delta) {
        long[] range = CounterStatements.guard(delta);
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).set("key", key).set("delta", delta).set("lo", range[0]).set("hi", range[1])
                        .done();
                return Jdbc.firstLong(ps);
            }
        }).retryingDuplicateKey();
    }

    /** Runs the dialect's {@link CounterStatements#set() set}, retrying a unique-key violation. */
    private SqlOp<Void> setInOneStatement(Sql sql, String key, long value) {
        return SqlOp.statement((SqlOp<Void>) c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).set("key", key).set("value", value).done();
                ps.executeUpdate();
                return null;
            }
        }).retryingDuplicateKey();
    }

    @Override
    public SqlOp<OptionalLong> add(String key, long delta) {
        if (statements.addHook() != null) {
            return SqlOp.statement(c -> statements.addHook().add(c, key, delta));
        }
        if (statements.add() != null) {
            return addInOneStatement(statements.add(), key, delta);
        }
        long[] range = CounterStatements.guard(delta);
        return SqlOp.transaction(c -> {
            for (int attempt = 0; attempt < 5; attempt++) {
                int updated;
                try (PreparedStatement ps = add.prepare(c)) {
                    dialect.bind(add, ps).set("delta", delta).set("key", key).set("lo", range[0]).set("hi", range[1])
                            .done();
                    updated = ps.executeUpdate();
                }
                OptionalLong value = read(c, key);
                if (updated == 1) {
                    return value;
                }
                if (value.isPresent()) {
                    long v = value.getAsLong();
                    if (v < range[0] || v > range[1]) {
                        return OptionalLong.empty(); // exists, but the increment would overflow
                    }
                    continue; // another caller created it after our UPDATE looked: update it now
                }
                if (Jdbc.insertUnlessExists(c, dialect, () -> insert(c, key, delta))) {
                    return OptionalLong.of(delta);
                }
            }
            throw new IllegalStateException("counter '" + key + "' of " + t.table() + " neither updatable nor insertable");
        });
    }

    private OptionalLong read(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = select.prepare(c)) {
            dialect.bind(select, ps).set("key", key).done();
            return Jdbc.firstLong(ps);
        }
    }

    private void insert(Connection c, String key, long value) throws SQLException {
        try (PreparedStatement ps = insert.prepare(c)) {
            dialect.bind(insert, ps).set("key", key).set("value", value).done();
            ps.executeUpdate();
        }
    }

    @Override
    public SqlOp<OptionalLong> get(String key) {
        return SqlOp.read(c -> read(c, key));
    }

    @Override
    public SqlOp<Void> set(String key, long value) {
        if (statements.setHook() != null) {
            return SqlOp.statement(c -> {
                statements.setHook().set(c, key, value);
                return null;
            });
        }
        if (statements.set() != null) {
            return setInOneStatement(statements.set(), key, value);
        }
        return SqlOp.transaction(c -> {
            for (int attempt = 0; attempt < 3; attempt++) {
                try (PreparedStatement ps = update.prepare(c)) {
                    dialect.bind(update, ps).set("value", value).set("key", key).done();
                    if (ps.executeUpdate() == 1) {
                        return null;
                    }
                }
                if (Jdbc.insertUnlessExists(c, dialect, () -> insert(c, key, value))) {
                    return null;
                }
            }
            throw new IllegalStateException("counter '" + key + "' of " + t.table() + " neither updatable nor insertable");
        });
    }

    @Override
    public SqlOp<Boolean> remove(String key) {
        return SqlOp.statement(c -> {
            try (PreparedStatement ps = delete.prepare(c)) {
                dialect.bind(delete, ps).set("key", key).done();
                return ps.executeUpdate() > 0;
            }
        });
    }

    @Override
    public SqlOp<Map<String, Long>> all() {
        return SqlOp.read(c -> {
            Map<String, Long> values = new HashMap<>();
            try (PreparedStatement ps = all.prepare(c); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    values.put(dialect.readKey(rs, 1), rs.getLong(2));
                }
            }
            return values;
        });
    }
}
