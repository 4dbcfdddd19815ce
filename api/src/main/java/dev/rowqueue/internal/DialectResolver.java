package dev.rowqueue.internal;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.portable.PortableDialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Chooses a dialect: explicitly registered providers first (in registration order), then those found by
 * {@link ServiceLoader} (by descending priority), then the portable fallback with a warning.
 */
public final class DialectResolver {
    private static final Logger log = LoggerFactory.getLogger(DialectResolver.class);

    private DialectResolver() {
    }

    /**
     * @return the providers on the class path, highest priority first
     */
    public static List<DialectProvider> discovered() {
        List<DialectProvider> found = new ArrayList<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        ServiceLoader.load(DialectProvider.class, loader != null ? loader : DialectResolver.class.getClassLoader())
                .forEach(found::add);
        if (loader != null && loader != DialectResolver.class.getClassLoader() && found.isEmpty()) {
            ServiceLoader.load(DialectProvider.class, DialectResolver.class.getClassLoader()).forEach(found::add);
        }
        found.sort(Comparator.comparingInt(DialectProvider::priority).reversed());
        return found;
    }

    /**
     * @param explicit providers registered on the builder
     * @return every known provider, explicit first, ending with the portable one
     */
    public static List<DialectProvider> all(List<DialectProvider> explicit) {
        List<DialectProvider> all = new ArrayList<>(explicit);
        all.addAll(discovered());
        all.add(new PortableDialect.Provider());
        return all;
    }

    /**
     * @param explicit providers registered on the builder
     * @param name     a dialect name
     * @return the provider with that name
     * @throws IllegalArgumentException naming the known dialects if there is none
     */
    public static DialectProvider byName(List<DialectProvider> explicit, String name) {
        List<DialectProvider> all = all(explicit);
        return all.stream().filter(p -> p.name().equalsIgnoreCase(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no dialect named '" + name + "'; known: "
                        + all.stream().map(DialectProvider::name).distinct().collect(Collectors.joining(", "))));
    }

    static Dialect resolve(List<DialectProvider> explicit, String name, DatabaseProduct product,
                           Map<String, String> options) {
        try {
            return resolve(explicit, name, product, options, null);
        } catch (SQLException e) {
            throw new IllegalStateException("unreachable: no connection to fail", e);
        }
    }

    /**
     * @param connection a connection the dialect may ask what the database accepts, or {@code null} for none
     */
    static Dialect resolve(List<DialectProvider> explicit, String name, DatabaseProduct product,
                           Map<String, String> options, Connection connection) throws SQLException {
        if (name != null) {
            DialectProvider forced = byName(explicit, name);
            if (!forced.supports(product)) {
                log.warn("rowqueue: dialect '{}' was forced but does not recognise {}; using it anyway",
                        forced.name(), product.describe());
            }
            return create(forced, product, options, connection);
        }
        List<DialectProvider> candidates = new ArrayList<>(explicit);
        candidates.addAll(discovered());
        for (DialectProvider provider : candidates) {
            if (provider.supports(product)) {
                return create(provider, product, options, connection);
            }
        }
        log.warn("rowqueue: no dialect module recognises '{}' (driver {} {}); falling back to the portable"
                        + " standard-SQL dialect, which asks the database what it accepts. It is correct but slower;"
                        + " add the database's dialect module, or run the TCK against it with 'rowqueue tck'.",
                product.describe(), product.driverName(), product.driverVersion());
        return create(new PortableDialect.Provider(), product, options, connection);
    }

    private static Dialect create(DialectProvider provider, DatabaseProduct product, Map<String, String> options,
                                  Connection connection) throws SQLException {
        return connection == null ? provider.create(product, options)
                : provider.create(product, options, connection);
    }
}
