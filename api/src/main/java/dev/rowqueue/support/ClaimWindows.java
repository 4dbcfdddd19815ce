package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link WorkStatements.ClaimWindow}: candidates from unlocked windows of ids, locked one at a time with a
 * primary-key lookup each, so no row beyond those taken stays locked.
 */
public final class ClaimWindows {

    private static final int MIN_WINDOW = 32;

    private final Dialect dialect;
    private final WorkStatements.ClaimWindow sql;
    private final int rounds;

    /**
     * @param dialect binds the statements
     * @param sql     the statements
     * @param rounds  how many windows in a row a claim widens while every row of a full one was taken by others
     */
    public ClaimWindows(Dialect dialect, WorkStatements.ClaimWindow sql, int rounds) {
        this.dialect = dialect;
        this.sql = sql;
        this.rounds = rounds;
    }

    /** Binds what a window query needs besides {@code :k}. */
    @FunctionalInterface
    public interface Binding {
        /**
         * @param b the binder
         * @return it
         * @throws SQLException from the driver
         */
        Sql.Binder bind(Sql.Binder b) throws SQLException;
    }

    /**
     * Up to {@code n} claimable ids from windows of {@code window}, widened while every row of a full one was taken.
     *
     * @param c       a connection in a transaction
     * @param window  the window query, binding {@code :k}
     * @param binding binds its other parameters
     * @param n       the most ids
     * @return the ids locked, in the window's order
     * @throws SQLException from the driver
     */
    public List<Long> claim(Connection c, Sql window, Binding binding, int n) throws SQLException {
        int size = Math.max(4 * n, MIN_WINDOW);
        for (int round = 0; ; round++, size = (int) Math.min(4L * size, Integer.MAX_VALUE)) {
            List<Long> ids;
            try (PreparedStatement ps = window.prepare(c)) {
                binding.bind(dialect.bind(window, ps).setInt("k", size)).done();
                ids = Jdbc.longs(ps);
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            List<Long> locked = lock(c, ids, n);
            if (!locked.isEmpty() || ids.size() < size || round + 1 >= rounds) {
                return locked; // a window that was not full held every claimable job
            }
        }
    }

    /**
     * @param c a connection in a transaction
     * @param n the most ids
     * @return up to {@code n} claimable ids, locked, in claim order
     * @throws SQLException from the driver
     */
    public List<Long> claim(Connection c, int n) throws SQLException {
        return claim(c, sql.claim(), b -> b, n);
    }

    /**
     * @param c    a connection in a transaction
     * @param from the range's start, exclusive
     * @param to   its end, inclusive
     * @param n    the most ids
     * @return up to {@code n} claimable ids of the range, locked, ascending
     * @throws SQLException from the driver
     */
    public List<Long> range(Connection c, long from, long to, int n) throws SQLException {
        Sql window = sql.rotation();
        int size = Math.max(4 * n, MIN_WINDOW);
        List<Long> result = new ArrayList<>();
        while (result.size() < n) {
            List<Long> ids;
            try (PreparedStatement ps = window.prepare(c)) {
                dialect.bind(window, ps).set("from", from).set("to", to).setInt("k", size).done();
                ids = Jdbc.longs(ps);
            }
            if (ids.isEmpty()) {
                break;
            }
            result.addAll(lock(c, ids, n - result.size()));
            if (ids.size() < size) {
                break;
            }
            from = ids.get(ids.size() - 1);
        }
        return result;
    }

    /**
     * Locks up to {@code n} of {@code ids} that are still claimable, in the order given, skipping rows other consumers
     * hold.
     */
    private List<Long> lock(Connection c, List<Long> ids, int n) throws SQLException {
        Sql lockOne = sql.lockOne();
        List<Long> locked = new ArrayList<>(n);
        try (PreparedStatement ps = lockOne.prepare(c)) {
            for (Long id : ids) {
                dialect.bind(lockOne, ps).set("id", id).done();
                if (Jdbc.firstLong(ps).isPresent()) {
                    locked.add(id);
                    if (locked.size() == n) {
                        break;
                    }
                }
            }
        }
        return locked;
    }
}
