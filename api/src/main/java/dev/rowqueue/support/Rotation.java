package dev.rowqueue.support;

import dev.rowqueue.Job;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Rotation over a work queue (the endless round-robin batch) and the rows of its cursors table: a rotation locks its
 * cursor's row, takes the next jobs after the cursor in id order, wrapping around to the lowest ids, leases them and
 * moves the cursor to the last one leased, in one transaction. Gates (claims with a per-key limit) are rows of the
 * same table, locked by a write.
 */
public final class Rotation {

    /** The steps a rotation takes from its store, which dialects may change. */
    public interface Steps {
        /**
         * @param c      a connection in a transaction
         * @param cursor the cursor's name
         * @return its position, the row locked until the transaction ends
         * @throws SQLException from the driver
         */
        long lockCursor(Connection c, String cursor) throws SQLException;

        /**
         * @param c     a connection in a transaction
         * @param after ids above {@code last} if true, else ids up to it
         * @param n     the most ids
         * @param last  the cursor's position
         * @return claimable ids, ascending
         * @throws SQLException from the driver
         */
        List<Long> candidates(Connection c, boolean after, int n, long last) throws SQLException;

        /**
         * @param c       a connection in a transaction
         * @param ids     candidates
         * @param leaseMs the lease
         * @param token   the lease token
         * @return the jobs leased, in the order of {@code ids}
         * @throws SQLException from the driver
         */
        List<Job> leaseAndRead(Connection c, List<Long> ids, long leaseMs, long token) throws SQLException;
    }

    private final Dialect dialect;
    private final WorkTables t;
    private final Sql cursorLock;
    private final Sql cursorSelect;
    private final Sql cursorInsert;
    private final Sql cursorMove;
    private final Sql gateBump;

    /**
     * @param dialect the dialect
     * @param t       the queue's tables
     */
    public Rotation(Dialect dialect, WorkTables t) {
        this.dialect = dialect;
        this.t = t;
        cursorLock = Sql.of("UPDATE " + t.cursors() + " SET last_id = last_id WHERE cursor_name = :cursor");
        cursorSelect = Sql.of("SELECT last_id FROM " + t.cursors() + " WHERE cursor_name = :cursor");
        cursorInsert = Sql.of("INSERT INTO " + t.cursors() + " (cursor_name, last_id) VALUES (:cursor, 0)");
        cursorMove = Sql.of("UPDATE " + t.cursors() + " SET last_id = :last WHERE cursor_name = :cursor");
        gateBump = Sql.of("UPDATE " + t.cursors() + " SET last_id = last_id + 1 WHERE cursor_name = :cursor");
    }

    /**
     * One rotation, in the caller's transaction.
     *
     * @param c       a connection in a transaction
     * @param steps   the store's steps
     * @param cursor  the cursor's name
     * @param max     the most jobs
     * @param leaseMs the lease
     * @param token   the lease token
     * @return the jobs leased, in id order from the cursor on
     * @throws SQLException from the driver
     */
    public List<Job> rotate(Connection c, Steps steps, String cursor, int max, long leaseMs, long token)
            throws SQLException {
        long last = steps.lockCursor(c, cursor);
        List<Long> ids = steps.candidates(c, true, max, last);
        if (ids.size() < max) {
            ids = new ArrayList<>(ids);
            ids.addAll(steps.candidates(c, false, max - ids.size(), last));
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Job> leased = steps.leaseAndRead(c, ids, leaseMs, token);
        if (!leased.isEmpty()) {
            try (PreparedStatement ps = cursorMove.prepare(c)) {
                dialect.bind(cursorMove, ps).set("last", leased.get(leased.size() - 1).id()).set("cursor", cursor)
                        .done();
                ps.executeUpdate();
            }
        }
        return leased;
    }

    /**
     * Locks a rotation cursor's row for the transaction, creating it at position 0 if missing.
     *
     * @param c      a connection in a transaction
     * @param cursor the cursor name
     * @return its position
     * @throws SQLException from the driver
     */
    public long lockCursor(Connection c, String cursor) throws SQLException {
        lockRow(c, cursorLock, cursor, "rotation cursor '" + cursor + "'");
        try (PreparedStatement ps = cursorSelect.prepare(c)) {
            dialect.bind(cursorSelect, ps).set("cursor", cursor).done();
            return Jdbc.firstLong(ps).orElseThrow();
        }
    }

    /**
     * Bumps a gate row of the cursors table ({@code last_id + 1}), creating it if missing: the row is locked until the
     * transaction ends, and the write is certified where only writes are ordered across nodes.
     *
     * @param c    a connection in a transaction
     * @param name the gate's cursor name ({@link WorkTables#CLAIM_GATE})
     * @throws SQLException from the driver
     */
    public void lockGate(Connection c, String name) throws SQLException {
        lockRow(c, gateBump, name, "the gate " + name);
    }

    /**
     * Locks a row of the cursors table with an {@code UPDATE} of it, inserting the row (at position 0) when the update
     * finds none; a racer's insert of the same row counts as found, and the update runs again.
     */
    private void lockRow(Connection c, Sql lock, String cursor, String what) throws SQLException {
        for (int attempt = 0; attempt < 3; attempt++) {
            int locked;
            try (PreparedStatement ps = lock.prepare(c)) {
                dialect.bind(lock, ps).set("cursor", cursor).done();
                locked = ps.executeUpdate();
            }
            if (locked == 1) {
                return;
            }
            Jdbc.insertUnlessExists(c, dialect, () -> {
                try (PreparedStatement ps = cursorInsert.prepare(c)) {
                    dialect.bind(cursorInsert, ps).set("cursor", cursor).done();
                    ps.executeUpdate();
                }
            });
        }
        throw new IllegalStateException(what + " of " + t.cursors() + " cannot be created");
    }
}
