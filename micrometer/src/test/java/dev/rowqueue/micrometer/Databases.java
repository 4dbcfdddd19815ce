package dev.rowqueue.micrometer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.h2.jdbcx.JdbcDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The databases the tests run on: H2 in memory, and one embedded PostgreSQL server per test JVM. */
final class Databases {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static EmbeddedPostgres postgres;

    private Databases() {
    }

    /** @return a fresh in-memory H2 database */
    static DataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:metrics_" + NAMES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    /**
     * A fresh database on the JVM's embedded PostgreSQL (the newest binaries the build pins; as root zonky runs the
     * server in a user namespace), listening on loopback only.
     *
     * @return a pool on it; close it after
     */
    static synchronized HikariDataSource postgres() {
        try {
            if (postgres == null) {
                postgres = EmbeddedPostgres.builder()
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .setServerConfig("max_connections", "100")
                        .start();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
        String database = "metrics_" + NAMES.incrementAndGet();
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + database, e);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.getJdbcUrl("postgres", database));
        config.setMaximumPoolSize(12);
        config.setMinimumIdle(0);
        config.setPoolName("metrics-" + database);
        return new HikariDataSource(config);
    }

    /** A data source that refuses connections while {@link #down} is set. */
    static final class Switched {
        final AtomicBoolean down = new AtomicBoolean();
        final DataSource ds;

        Switched(DataSource target) {
            ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                    new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection") && down.get()) {
                            throw new SQLTransientConnectionException("connection refused (test)", "08001");
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
