package dev.rowqueue.support;

import dev.rowqueue.support.Sql;

/**
 * The statements a database runs for counters instead of the portable ones; a {@code null} statement keeps the
 * portable operation (a guarded {@code UPDATE}, a read and, for a new counter, an insert under a savepoint, in one
 * transaction).
 *
 * Built by name from {@link #PORTABLE} ({@code PORTABLE.withAdd(...).withSet(...)}).
 *
 * @param add an increment in one statement, in auto-commit mode: binds {@code :key}, {@code :delta}, {@code :lo} and
 *            {@code :hi} (the range the counter must be in for {@code + delta} to stay a 64-bit value), creates a
 *            missing counter at {@code :delta}, and returns the new value, or no row when the range check failed
 *            (then nothing changed); a unique-key violation (a creation race it does not absorb) is retried
 * @param set a set in one statement: binds {@code :key} and {@code :value}, creating the counter if missing; a
 *            unique-key violation is retried
 */
public record CounterStatements(Sql add, Sql set) {

    /** The portable counters: no statement of the database's own. */
    public static final CounterStatements PORTABLE = new CounterStatements(null, null);

    /**
     * @param add the increment ({@link #add()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withAdd(Sql add) {
        return new CounterStatements(add, set);
    }

    /**
     * @param set the set ({@link #set()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withSet(Sql set) {
        return new CounterStatements(add, set);
    }
}
