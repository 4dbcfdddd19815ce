package dev.rowqueue.tck;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One connection of the database under test, held open for a whole kit run, after checking that the data source's
 * connections share one database. {@link RowQueueTck} takes one before any contract runs, so every target gets it.
 *
 * <p>Holding a connection keeps alive an in-memory database that lives as long as one of its connections is open
 * (such as H2's {@code jdbc:h2:mem:name} without {@code DB_CLOSE_DELAY=-1}), which would otherwise vanish between
 * two contracts. The check asks the database rather than guessing from its name: it creates a table on the held
 * connection and reads it from a second one, asking again for up to {@value #APPLY_WAIT_MILLIS} ms (a cluster member
 * may apply another's DDL a moment later). If the second connection does not see the table, each connection has
 * a database of its own (as with a private in-memory database) and the kit cannot run: every rowqueue node and
 * thread works through connections of its own, and must see the same tables.
 */
public final class DatabaseHold implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DatabaseHold.class);

    private final Connection held;

    private DatabaseHold(Connection held) {
        this.held = held;
    }

    /**
     * Opens a connection to hold and checks that a second connection sees what the first one creates.
     *
     * @param dataSource the target's data source
     * @return the hold, to close after the run
     * @throws NotSharedException if a table created on one connection is not visible from a second one
     * @throws SQLException       if a connection cannot be opened, or the check's table cannot be created or dropped
     */
    public static DatabaseHold open(DataSource dataSource) throws SQLException {
        Connection held = dataSource.getConnection();
        try {
            if (!held.getAutoCommit()) {
                held.setAutoCommit(true);
            }
            String table = TckEnv.randomName();
            execute(held, "CREATE TABLE " + table + " (id INTEGER NOT NULL, PRIMARY KEY (id))");
            try (Connection second = dataSource.getConnection()) {
                SQLException unseen = unseenFor(second, table, APPLY_WAIT_MILLIS);
                if (unseen != null) {
                    throw new NotSharedException("the connections of this data source do not share one database: a"
                            + " table created on one connection (" + table + ") is not visible from a second one ("
                            + firstLine(unseen) + "). The kit, like any"
                            + " rowqueue deployment, works through many connections at once, so a database of which"
                            + " each connection has a private copy cannot be tested. Give a URL that names a database"
                            + " shared between connections: a file, a server, or a named in-memory database that"
                            + " connections share.", unseen);
                }
            } finally {
                execute(held, "DROP TABLE " + table);
            }
            return new DatabaseHold(held);
        } catch (SQLException | RuntimeException e) {
            try {
                held.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Checks, then lets the connection go: for a program that checks a target before it starts the kit.
     *
     * @param dataSource the target's data source
     * @throws NotSharedException if a table created on one connection is not visible from a second one
     * @throws SQLException       if a connection cannot be opened, or the check's table cannot be created or dropped
     */
    public static void check(DataSource dataSource) throws SQLException {
        open(dataSource).close();
    }

    /**
     * How long the second connection may take to see the table: on a replicated cluster whose connections go to
     * different members (MySQL Group Replication at its default consistency, Galera), a member applies another's DDL
     * a moment later. A private database never sees it, whatever the wait.
     */
    static final long APPLY_WAIT_MILLIS = 10_000;

    /**
     * @return the last error reading the table on this connection, or {@code null} once it can read it, asking again
     *         every 100 ms for up to {@code millis}
     */
    private static SQLException unseenFor(Connection connection, String table, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (true) {
            SQLException unseen = unseen(connection, table);
            if (unseen == null || System.nanoTime() - deadline >= 0) {
                return unseen;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return unseen;
            }
        }
    }

    /** @return the error reading the table on this connection, or {@code null} if it can read it */
    private static SQLException unseen(Connection connection, String table) {
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM "
                + table)) {
            rs.next();
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    private static String firstLine(SQLException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip().lines().findFirst()
                .orElse("");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Closes the held connection; a failure to close it is logged at DEBUG, as it changes no verdict. */
    @Override
    public void close() {
        try {
            held.close();
        } catch (SQLException e) {
            log.debug("rowqueue TCK: closing the held connection failed: {}", e.getMessage());
        }
    }

    /** The data source's connections do not share one database, so the kit cannot run on it. */
    public static final class NotSharedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        /**
         * @param message what was checked, and what to change
         * @param cause   the error of the second connection
         */
        NotSharedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
