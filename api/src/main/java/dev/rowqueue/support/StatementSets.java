package dev.rowqueue.support;

import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.WorkTables;

/**
 * A database's own statements for the standard stores ({@link StandardRingStore}, {@link StandardWorkStore},
 * {@link StandardCounterStore}), returned by {@link dev.rowqueue.spi.Dialect#statements()}: one place where a tuned
 * dialect names what it does differently, instead of one store factory override per kind of store. Each method's
 * default is the portable set, which replaces no step.
 */
public interface StatementSets {

    /** The portable statements: no step replaced; only the safe ring strategy. */
    StatementSets PORTABLE = new StatementSets() {
    };

    /**
     * @param tables   the ring's tables
     * @param strategy the ring's strategy
     * @param now      the SQL for the current time in milliseconds ({@link SqlForms#now()})
     * @return the ring's statements, or {@code null} if this database does not offer the strategy
     */
    default RingStatements ring(RingTables tables, RingStrategy strategy, String now) {
        return strategy == RingStrategy.SAFE ? RingStatements.PORTABLE : null;
    }

    /**
     * @param tables the work queue's tables
     * @param now    the SQL for the current time in milliseconds ({@link SqlForms#now()})
     * @return the work queue's statements
     */
    default WorkStatements work(WorkTables tables, String now) {
        return WorkStatements.PORTABLE;
    }

    /**
     * @param table the counters table
     * @return the counters' statements
     */
    default CounterStatements counters(CounterTable table) {
        return CounterStatements.PORTABLE;
    }
}
