package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * A test class with a database of its own on the shared embedded MariaDB, a pool per JDBC driver, and plain
 * connections for the statements a test runs itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EmbeddedServerTest {

    /** A pool per driver, sessions as {@link #session()} says. */
    protected final Map<EmbeddedMariaDb.Driver, HikariDataSource> pools = new EnumMap<>(EmbeddedMariaDb.Driver.class);
    /** The server. */
    protected EmbeddedMariaDb server;

    /** @return the database of this class */
    protected abstract String database();

    /** @return the session settings of pooled connections */
    protected abstract MySqlTargets.Session session();

    @BeforeAll
    final void createDatabase() {
        server = EmbeddedMariaDb.get();
        server.recreateDatabase(database());
        for (EmbeddedMariaDb.Driver d : EmbeddedMariaDb.Driver.values()) {
            pools.put(d, MySqlTargets.pool(server.url(d, database()), "root", "", session(), database() + "_" + d));
        }
    }

    @AfterAll
    final void dropDatabase() {
        pools.values().forEach(HikariDataSource::close);
        server.dropDatabase(database());
    }

    /**
     * @param driver a driver
     * @return a new connection with the server's session defaults
     * @throws SQLException if the server cannot be reached
     */
    protected Connection connect(EmbeddedMariaDb.Driver driver) throws SQLException {
        return DriverManager.getConnection(server.url(driver, database()), "root", "");
    }

    /**
     * @param prefix  a short prefix
     * @param variant what varies, e.g. the driver
     * @return a fresh queue name of at most 25 characters
     */
    protected static String name(String prefix, Object variant) {
        String v = variant.toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        return prefix + "_" + v.substring(0, Math.min(v.length(), 12)) + "_"
                + Long.toString(System.nanoTime() % 1_000_000, 36);
    }
}
