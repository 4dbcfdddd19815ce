package dev.rowqueue.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The isolation level each physical connection is handed out with, read once ({@link Connection#getTransactionIsolation}
 * is a server round trip on some drivers, pgjdbc's among them). Pools hand out a new wrapper per borrow around the
 * same physical connection, so the key is the innermost connection reached through
 * {@code unwrap(Connection.class)}; a wrapper that answers with itself is its own key (a pool that hands out a new
 * such wrapper per borrow then costs one check per operation, as before the cache). Keys are held weakly: a closed
 * physical connection leaves the map with its object.
 *
 * <p>This relies on pools resetting a connection to their configured level when it returns (HikariCP, DBCP, c3p0,
 * Agroal do), and on the executor putting back what it changed. A pool that does neither, with an application that
 * changes levels on its connections, can make rowqueue run at the application's level; statements then stay correct
 * and only conflicts, which are retried, become possible.
 */
final class IsolationCache {
    private static final int MAX_UNWRAPS = 8;

    private final Map<Connection, Integer> levels = new WeakHashMap<>();

    /**
     * @param c a borrowed connection, between transactions
     * @return the isolation level it has now, read from the driver on the first sight of its physical connection
     * @throws SQLException from the driver
     */
    int handedOut(Connection c) throws SQLException {
        Connection key = physical(c);
        synchronized (levels) {
            Integer known = levels.get(key);
            if (known != null) {
                return known;
            }
        }
        int level = c.getTransactionIsolation();
        synchronized (levels) {
            levels.put(key, level);
        }
        return level;
    }

    /** @param c a connection whose level is no longer known (a failed change) */
    void forget(Connection c) {
        try {
            Connection key = physical(c);
            synchronized (levels) {
                levels.remove(key);
            }
        } catch (SQLException | RuntimeException e) {
            // nothing cached for it then
        }
    }

    /** @return the innermost connection reachable through {@code unwrap(Connection.class)} */
    static Connection physical(Connection c) throws SQLException {
        Connection current = c;
        for (int i = 0; i < MAX_UNWRAPS; i++) {
            Connection inner;
            try {
                inner = current.isWrapperFor(Connection.class) ? current.unwrap(Connection.class) : current;
            } catch (SQLException | RuntimeException | AbstractMethodError e) {
                return current; // a wrapper that does not unwrap: its own key
            }
            if (inner == null || inner == current) {
                return current;
            }
            current = inner;
        }
        return current;
    }
}
