package dev.rowqueue.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Finds and creates a {@link Dialect}. Providers are registered in
 * {@code META-INF/services/dev.rowqueue.spi.DialectProvider} and can also be registered explicitly on the builder,
 * which takes precedence. Detection asks providers in descending {@link #priority()} order, so a provider for a
 * product that masquerades as another (MariaDB reporting "MySQL") must rank above it.
 */
public interface DialectProvider {

    /** @return the dialect's short name, lower case, e.g. {@code "postgresql"} */
    String name();

    /** @return detection order; higher is asked first. Default 0. */
    default int priority() {
        return 0;
    }

    /**
     * @param product the database
     * @return whether this dialect serves it (product and minimum version)
     */
    boolean supports(DatabaseProduct product);

    /**
     * Creates the dialect for one database version.
     *
     * @param product the database
     * @param options dialect options from the builder; unknown keys must be refused with
     *                {@link IllegalArgumentException}
     * @return the dialect
     */
    Dialect create(DatabaseProduct product, Map<String, String> options);

    /**
     * Creates the dialect for one database, which it may ask what it accepts (probe statements, settings) on the
     * connection given. Called once when a {@code RowQueues} instance starts; the connection is in auto-commit mode
     * and must be left so. The default ignores the connection ({@link #create(DatabaseProduct, Map)}); rendering DDL
     * without a database (the command line's {@code schema}) calls that one.
     *
     * @param product    the database
     * @param options    dialect options from the builder
     * @param connection a connection to the database
     * @return the dialect
     * @throws SQLException if asking the database failed
     */
    default Dialect create(DatabaseProduct product, Map<String, String> options, Connection connection)
            throws SQLException {
        return create(product, options);
    }
}
