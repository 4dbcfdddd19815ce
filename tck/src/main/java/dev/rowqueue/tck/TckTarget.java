package dev.rowqueue.tck;

import javax.sql.DataSource;
import java.util.Map;
import java.util.Optional;

/**
 * A database under test: embedded, an existing server reached by JDBC URL, or a Testcontainers container. The kit
 * needs a data source (pooled, for servers: the concurrency contracts use up to 17 connections at once, and the kit
 * holds one more for the whole run), a name for the report, and a way to release the database. Every connection of
 * the data source must reach the same database (see {@link DatabaseHold}).
 */
public interface TckTarget extends AutoCloseable {

    /** @return a name for the report, e.g. "PostgreSQL 17 (embedded)" */
    String name();

    /** @return connections to the database; the kit creates and drops its own tables there */
    DataSource dataSource();

    /** @return a dialect to force instead of detecting one (e.g. {@code "portable"}), or empty to detect */
    default Optional<String> dialect() {
        return Optional.empty();
    }

    /** @return dialect options for {@code RowQueues.Builder.dialectOption} */
    default Map<String, String> dialectOptions() {
        return Map.of();
    }

    /** Releases the database (stops an embedded server, closes a pool). */
    @Override
    default void close() throws Exception {
    }
}
