package dev.rowqueue.spi;

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
}
