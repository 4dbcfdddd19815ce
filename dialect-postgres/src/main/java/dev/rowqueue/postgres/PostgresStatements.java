package dev.rowqueue.postgres;

import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.WorkStatements;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;

/**
 * PostgreSQL's statements: work queues with their hooks ({@link PostgresWorkForms}), one statement per push and per
 * counter operation.
 */
final class PostgresStatements implements StatementSets {

    private final PostgresDialect dialect;
    private final boolean notify;

    /**
     * @param dialect the dialect
     * @param notify  whether work queue writes that make work claimable send {@code pg_notify}
     */
    PostgresStatements(PostgresDialect dialect, boolean notify) {
        this.dialect = dialect;
        this.notify = notify;
    }

    /** {@link PostgresWorkForms#statements}. */
    @Override
    public WorkStatements work(WorkTables tables, String now) {
        return PostgresWorkForms.statements(dialect, tables, notify);
    }

    /** Every strategy: {@link PostgresRing}, {@link PostgresSingleWriterRing}, {@link PostgresTriggerRing}. */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        return switch (strategy) {
            case SAFE -> PostgresRing.statements(dialect, t);
            case SINGLE_WRITER -> RingStatements.PORTABLE.withPush(new PostgresSingleWriterRing(dialect, t));
            case TRIGGER -> RingStatements.PORTABLE.withPush(new PostgresTriggerRing(t));
        };
    }

    /**
     * Counters in one statement each. An increment is an {@code INSERT ... ON CONFLICT (counter_key) DO UPDATE ...
     * WHERE counter_value BETWEEN :lo AND :hi RETURNING counter_value}: a new counter is created at {@code delta}; an
     * existing one is locked and incremented unless the guard fails, and then the statement returns no row and
     * changes nothing (the increment would leave the 64-bit range).
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        String insert = "INSERT INTO " + t.table() + " AS c (counter_key, counter_value) VALUES (:key, ";
        Sql add = Sql.of(insert + ":delta) ON CONFLICT (counter_key) DO UPDATE SET counter_value = c.counter_value"
                + " + EXCLUDED.counter_value WHERE c.counter_value BETWEEN :lo AND :hi RETURNING counter_value");
        Sql set = Sql.of(insert + ":value) ON CONFLICT (counter_key) DO UPDATE SET counter_value ="
                + " EXCLUDED.counter_value");
        return CounterStatements.PORTABLE.withAdd(add).withSet(set);
    }
}
