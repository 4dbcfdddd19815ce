package dev.rowqueue.internal;

import dev.rowqueue.support.Jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The isolation level each physical connection is handed out with, read once ({@link Connection#getTransactionIsolation}
 * is a server round trip on some drivers, pgjdbc's among them). Pools hand out a new wrapper per borrow around the
 * same physical connection, so the key is {@link Jdbc#physicalConnection}; a wrapper that answers with itself is its
 * own key (a pool that hands out a new such wrapper per borrow then costs one check per operation, as before the
 * cache). Keys are held weakly: a closed
 * physical connection leaves the map with its object.
 *
 * <p>Nothing is forgotten when a change of level fails: the level a physical connection is handed out with does not
 * depend on what this executor did to it, and a connection that failed is usually evicted by its pool anyway. A
 * pool marks a failed connection's proxy closed and may make its delegate a stand-in whose every method throws,
 * {@code hashCode} included, so no map operation here may fail the operation.
 *
 * <p>This relies on pools resetting a connection to their configured level when it returns (HikariCP, DBCP, c3p0,
 * Agroal do), and on the executor putting back what it changed. A pool that does neither, with an application that
 * changes levels on its connections, can make rowqueue run at the application's level; statements then stay correct
 * and only conflicts, which are retried, become possible.
 */
final class IsolationCache {
    private final Map<Connection, Integer> levels = new WeakHashMap<>();

    /**
     * @param c a borrowed connection, between transactions
     * @return the isolation level it has now, read from the driver on the first sight of its physical connection
     * @throws SQLException from the driver
     */
    int handedOut(Connection c) throws SQLException {
        Connection key = Jdbc.physicalConnection(c);
        try {
            synchronized (levels) {
                Integer known = levels.get(key);
                if (known != null) {
                    return known;
                }
            }
        } catch (RuntimeException e) {
            return c.getTransactionIsolation(); // a key whose hashCode throws (a pool's closed stand-in): no cache
        }
        int level = c.getTransactionIsolation();
        try {
            synchronized (levels) {
                levels.put(key, level);
            }
        } catch (RuntimeException e) {
            // not cached; read again next time
        }
        return level;
    }
}
