package dev.rowqueue.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * One statement that pins a dialect's session settings, run once per physical connection
 * ({@link dev.rowqueue.spi.Dialect#prepareConnection}; "Session settings" in {@link dev.rowqueue.spi.Dialect}). Pools
 * hand out a new wrapper per borrow around the same physical connection, so the key is
 * {@link Jdbc#physicalConnection}; keys are held weakly, and a closed physical connection leaves with its object.
 * A borrow of a connection pinned before costs a lookup and no round trip. A statement that fails leaves the
 * connection unpinned, to be tried again on its next borrow.
 */
public final class SessionPin {
    private final String statement;
    private final Set<Connection> pinned = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    /**
     * @param statement the statement, e.g. {@code SET SESSION sql_mode = '...'}
     */
    public SessionPin(String statement) {
        this.statement = statement;
    }

    /** @return the statement */
    public String statement() {
        return statement;
    }

    /**
     * Runs the statement on the connection unless its physical connection was pinned before.
     *
     * @param connection a borrowed connection
     * @throws SQLException from the driver
     */
    public void apply(Connection connection) throws SQLException {
        Connection physical = Jdbc.physicalConnection(connection);
        if (pinned.contains(physical)) {
            return;
        }
        try (Statement s = connection.createStatement()) {
            s.execute(statement);
        }
        pinned.add(physical);
    }
}
