package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import dev.rowqueue.testkit.EmbeddedPostgresServer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** A fresh database on the JVM's embedded server of the newest version, with a pool and plain JDBC helpers. */
final class PgFixture implements AutoCloseable {

    final EmbeddedPostgresServer server;
    final String database;
    final HikariDataSource pool;

    private PgFixture(EmbeddedPostgresServer server, String prefix, int poolSize) {
        this.server = server;
        this.database = server.newDatabase(prefix);
        this.pool = server.pool(database, poolSize);
    }

    /**
     * @param prefix a database name prefix
     * @return a fixture on the newest embedded server
     */
    static PgFixture newest(String prefix) {
        return new PgFixture(EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST), prefix, 24);
    }

    /**
     * @param server a server
     * @param prefix a database name prefix
     * @return a fixture on that server
     */
    static PgFixture on(EmbeddedPostgresServer server, String prefix) {
        return new PgFixture(server, prefix, 24);
    }

    /**
     * A TCK target: a fresh database on a server, behind a pool of 24 (the concurrency contracts use 17 connections
     * at once, a listening {@code RowQueues} one more).
     *
     * @param server the server
     * @return the target
     */
    static TckTarget target(EmbeddedPostgresServer server) {
        HikariDataSource pool = server.pool(server.newDatabase("tck"), 24);
        return TckTargets.of("PostgreSQL " + server.version() + " (embedded, zonky binaries)", pool, pool::close);
    }

    /**
     * A TCK target whose pool hands out connections at another default isolation level (HikariCP's
     * {@code transactionIsolation}, e.g. {@code TRANSACTION_REPEATABLE_READ}).
     *
     * @param server    the server
     * @param isolation the pool's level, as HikariCP names it
     * @return the target
     */
    static TckTarget target(EmbeddedPostgresServer server, String isolation) {
        HikariDataSource pool = server.pool(server.newDatabase("tck"), 24, 5_000, isolation);
        return TckTargets.of("PostgreSQL " + server.version() + " (embedded, zonky binaries, pool at " + isolation
                + ")", pool, pool::close);
    }

    /**
     * A fresh database whose sessions a DBA configured with {@code ALTER DATABASE ... SET} (no URL shows them).
     *
     * @param server   the server
     * @param settings e.g. {@code "statement_timeout = '100ms'"}, each applied with {@code ALTER DATABASE ... SET}
     * @param sql      statements run in the database first, as the server's superuser (e.g. {@code CREATE SCHEMA})
     * @return the database's name
     */
    static String configuredDatabase(EmbeddedPostgresServer server, List<String> settings, List<String> sql) {
        String database = server.newDatabase("tck");
        try (Connection c = server.dataSource(database).getConnection(); Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
            for (String setting : settings) {
                s.execute("ALTER DATABASE " + database + " SET " + setting);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot configure database " + database, e);
        }
        return database;
    }

    /**
     * A TCK target through pgjdbc-ng ({@code com.impossibl.pgjdbc-ng:pgjdbc-ng}), a second PostgreSQL driver
     * independent of pgjdbc: a fresh database on a server, behind a pool of 24.
     *
     * @param server the server
     * @return the target
     */
    static TckTarget pgjdbcNgTarget(EmbeddedPostgresServer server) {
        String database = server.newDatabase("tck");
        return PostgresTargets.pooled("PostgreSQL " + server.version()
                        + " (embedded, zonky binaries) via pgjdbc-ng",
                "jdbc:pgsql://127.0.0.1:" + server.port() + "/" + database, "postgres", "");
    }

    /** @return a builder on the pool */
    RowQueues.Builder builder() {
        return RowQueues.builder(pool);
    }

    /**
     * A connection that is not rowqueue's and not the pool's: "another program".
     *
     * @param applicationName how it shows in {@code pg_stat_activity}
     * @return a new connection in auto-commit mode
     * @throws SQLException if it cannot connect
     */
    Connection plain(String applicationName) throws SQLException {
        return DriverManager.getConnection(server.url(database) + "?ApplicationName=" + applicationName, "postgres",
                "");
    }

    /**
     * @param sql a statement
     * @return its update count, or -1
     */
    int execute(String sql) {
        try (Connection c = plain("fixture"); Statement s = c.createStatement()) {
            return s.execute(sql) ? -1 : s.getUpdateCount();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param sql a query of one number
     * @return the number
     */
    long queryLong(String sql) {
        try (Connection c = plain("fixture"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
