package dev.rowqueue.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The statements a database runs for counters instead of the portable ones; a {@code null} slot keeps the portable
 * operation (a guarded {@code UPDATE}, a read and, for a new counter, an insert under a savepoint, in one
 * transaction).
 *
 * <p>Built by name from {@link #PORTABLE} ({@code PORTABLE.withAdd(...).withSet(...)}). A slot is SQL with named
 * parameters, or, where the database needs code (a PL/SQL call, a generated key, a retry of its own), one of the
 * hooks {@link Add} and {@link Set}.
 *
 * @param add     an increment in one statement, in auto-commit mode: binds {@code :key}, {@code :delta}, {@code :lo}
 *                and {@code :hi} (the {@link #guard range} the counter must be in for {@code + delta} to stay a
 *                64-bit value), creates a missing counter at {@code :delta}, and returns the new value, or no row
 *                when the range check failed (then nothing changed); a unique-key violation (a creation race it does
 *                not absorb) is retried
 * @param set     a set in one statement: binds {@code :key} and {@code :value}, creating the counter if missing; a
 *                unique-key violation is retried
 * @param addHook an increment in code, replacing {@code add} and the portable increment
 * @param setHook a set in code, replacing {@code set} and the portable set
 */
public record CounterStatements(Sql add, Sql set, Add addHook, Set setHook) {

    /** The portable counters: no statement of the database's own. */
    public static final CounterStatements PORTABLE = new CounterStatements(null, null, null, null);

    /** An increment, for a database that needs code for it. */
    @FunctionalInterface
    public interface Add {
        /**
         * Adds {@code delta} to a counter, creating it at {@code delta} if missing; run in auto-commit mode, so each
         * statement it sends is atomic on its own.
         *
         * @param c     a connection in auto-commit mode
         * @param key   the counter
         * @param delta the increment
         * @return the new value, or empty if the increment would leave the 64-bit range (then nothing changed)
         * @throws SQLException from the driver
         */
        OptionalLong add(Connection c, String key, long delta) throws SQLException;
    }

    /** A set, for a database that needs code for it (a statement that must not be retried on a unique key). */
    @FunctionalInterface
    public interface Set {
        /**
         * Sets a counter, creating it if missing; run in auto-commit mode, and not retried after a unique-key
         * violation.
         *
         * @param c     a connection in auto-commit mode
         * @param key   the counter
         * @param value the value
         * @throws SQLException from the driver
         */
        void set(Connection c, String key, long value) throws SQLException;
    }

    /**
     * The range a counter must be in for {@code + delta} to stay a 64-bit value.
     *
     * @param delta the increment
     * @return {@code {lo, hi}}
     */
    public static long[] guard(long delta) {
        return delta >= 0
                ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE - delta}
                : new long[] {Long.MIN_VALUE - delta, Long.MAX_VALUE};
    }

    /**
     * @param add the increment ({@link #add()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withAdd(Sql add) {
        return new CounterStatements(add, set, addHook, setHook);
    }

    /**
     * @param set the set ({@link #set()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withSet(Sql set) {
        return new CounterStatements(add, set, addHook, setHook);
    }

    /**
     * @param addHook the increment in code ({@link #addHook()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withAdd(Add addHook) {
        return new CounterStatements(add, set, addHook, setHook);
    }

    /**
     * @param setHook the set in code ({@link #setHook()})
     * @return these statements with it; the others unchanged
     */
    public CounterStatements withSet(Set setHook) {
        return new CounterStatements(add, set, addHook, setHook);
    }
}
