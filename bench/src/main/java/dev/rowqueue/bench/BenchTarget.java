package dev.rowqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.util.Optional;
import java.util.function.IntFunction;

/** A database the benchmarks run against, with a connection pool sized for the largest thread count and the peers. */
interface BenchTarget extends AutoCloseable {

    /** @return a name for the table, e.g. "PostgreSQL 18.1 (embedded)" */
    String name();

    /** @return pooled connections */
    DataSource dataSource();

    /**
     * Another pool on the same database, as {@link Targets} builds the main one (same URL, user and driver settings),
     * for a second application node: its own connections, none shared with {@link #dataSource()}.
     *
     * @param node a name for the pool, added to the main pool's
     * @param size its connections, all opened at once
     * @return the pool; the caller closes it
     */
    default HikariDataSource pool(String node, int size) {
        if (!(dataSource() instanceof HikariDataSource main)) {
            throw new IllegalStateException(name() + ": its data source is not a HikariCP pool to copy");
        }
        HikariConfig c = new HikariConfig();
        main.copyStateTo(c);
        c.setPoolName(main.getPoolName() + "-" + node);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        return new HikariDataSource(c);
    }

    /** @return the SQL type for a text column of up to 200 characters on this database */
    default String varchar() {
        return "VARCHAR(200)";
    }

    /** @return how the server was configured where it matters for the numbers (durability, buffers) */
    default String settings() {
        return "";
    }

    /**
     * @param table a table just filled in bulk
     * @return the maintenance statement a database would have run on it meanwhile (statistics, and on PostgreSQL
     *         the vacuum that an insert-heavy table triggers), or {@code null}
     */
    default String maintenance(String table) {
        return null;
    }

    /** @return the db-scheduler peer on this database, if it runs here */
    default Optional<Peer> peer() {
        return Optional.empty();
    }

    /**
     * @return a string in the command line of the server's processes (its data directory), to read their CPU time
     *         ({@link CpuMeter}); {@code null} for an in-process database
     */
    default String serverMarker() {
        return null;
    }

    /**
     * @return where a driver reaches the server over TCP, to count round trips through a relay; empty for an
     *         in-process database
     */
    default Optional<Endpoint> endpoint() {
        return Optional.empty();
    }

    /**
     * A server's address and a way to build a JDBC URL with another port (the counting relay's).
     *
     * @param host     the server's host
     * @param port     its port
     * @param url      the JDBC URL for a given port
     * @param user     the user
     * @param password the password
     */
    record Endpoint(String host, int port, IntFunction<String> url, String user, String password) {
    }

    @Override
    void close() throws Exception;
}
