package dev.rowqueue.bench;

import javax.sql.DataSource;

/** A database the benchmarks run against, with a connection pool sized for the largest thread count. */
interface BenchTarget extends AutoCloseable {

    /** @return a name for the table, e.g. "PostgreSQL 17.2 (embedded)" */
    String name();

    /** @return pooled connections */
    DataSource dataSource();

    /** @return the SQL type for a text column of up to 200 characters on this database */
    default String varchar() {
        return "VARCHAR(200)";
    }

    /** @return whether the db-scheduler peer runs on this database */
    default boolean runsPeer() {
        return false;
    }

    @Override
    void close() throws Exception;
}
