package dev.rowqueue.mysql;

import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.WorkStatements;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/** MySQL's and MariaDB's statements for rings and counters. */
final class MySqlStatements implements StatementSets {

    private final MySqlDialect dialect;
    private final MySqlDialect.SingleWriterStatement singleWriter;
    private final MySqlDialect.ClaimPath claimPath;
    private final boolean insertReturning;

    /**
     * @param dialect      the dialect
     * @param singleWriter the single-writer ring's statement
     */
    MySqlStatements(MySqlDialect dialect, MySqlDialect.SingleWriterStatement singleWriter,
                    MySqlDialect.ClaimPath claimPath, boolean insertReturning) {
        this.dialect = dialect;
        this.singleWriter = singleWriter;
        this.claimPath = claimPath;
        this.insertReturning = insertReturning;
    }

    /** {@link MySqlWorkForms#statements}. */
    @Override
    public WorkStatements work(WorkTables tables, String now) {
        return MySqlWorkForms.statements(dialect, tables, claimPath, insertReturning);
    }

    /** The safe ring ({@link MySqlRing}) and the single-writer ring ({@link MySqlSingleWriterRing}). */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        return switch (strategy) {
            case SAFE -> MySqlRing.statements(dialect, t);
            case SINGLE_WRITER -> RingStatements.PORTABLE.withPush(new MySqlSingleWriterRing(dialect, t, singleWriter));
            case TRIGGER -> null;
        };
    }

    /**
     * Counters in one statement, the technique of the MySQL Cookbook's recipe "Using Single-Row Sequence
     * Generators": {@code LAST_INSERT_ID(expr)} sets the new value and hands it back as the statement's insert id,
     * which the driver returns as the generated key.
     *
     * <pre>{@code
     * INSERT INTO c (counter_key, counter_value) VALUES (:key, CAST(LAST_INSERT_ID(CAST(:delta AS SIGNED)) AS SIGNED))
     * ON DUPLICATE KEY UPDATE counter_value = CAST(LAST_INSERT_ID(counter_value + CAST(:delta AS SIGNED)) AS SIGNED)
     * }</pre>
     *
     * <p>The first use creates the row, every other one increments it, atomically under the row lock. The casts
     * matter: {@code LAST_INSERT_ID()} returns BIGINT UNSIGNED, so a negative value stored uncast is out of range (or
     * clipped outside strict mode); the delta is cast so that even {@code Long.MIN_VALUE} is signed BIGINT
     * arithmetic. An increment that would leave the 64-bit range fails with error 1690 inside the server and changes
     * nothing. {@code set} is one upsert too; it cannot lose a creation race, so it is not retried.
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        String delta = "CAST(:delta AS SIGNED)";
        Sql add = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, CAST(LAST_INSERT_ID("
                + delta + ") AS SIGNED)) ON DUPLICATE KEY UPDATE counter_value = CAST(LAST_INSERT_ID(counter_value + "
                + delta + ") AS SIGNED)");
        Sql set = Sql.of("INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, CAST(:value AS"
                + " SIGNED)) ON DUPLICATE KEY UPDATE counter_value = CAST(:value AS SIGNED)");
        return CounterStatements.PORTABLE
                .withAdd((c, key, value) -> {
                    try (PreparedStatement ps = c.prepareStatement(add.jdbc(), Statement.RETURN_GENERATED_KEYS)) {
                        dialect.bind(add, ps).set("key", key).set("delta", value).done();
                        ps.executeUpdate();
                        return OptionalLong.of(LastInsertId.read(c, ps));
                    } catch (SQLException e) {
                        if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                            return OptionalLong.empty();
                        }
                        throw e;
                    }
                })
                .withSet((c, key, value) -> {
                    try (PreparedStatement ps = set.prepare(c)) {
                        dialect.bind(set, ps).set("key", key).set("value", value).done();
                        ps.executeUpdate();
                    }
                });
    }
}
