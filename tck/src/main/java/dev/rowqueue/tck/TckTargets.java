package dev.rowqueue.tck;

import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.Assumptions;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Ready-made targets. A server named by environment variables is {@link #fromEnvironment(String, String)}: the one
 * way every {@code <Database>ServerTckTest} reaches its server.
 */
public final class TckTargets {

    /**
     * The prefix of the environment variables that name a server for the kit: {@code ROWQUEUE_TCK_<DB>_URL} (a JDBC
     * URL; the target runs only when it is set), and optionally {@code ROWQUEUE_TCK_<DB>_USER},
     * {@code ROWQUEUE_TCK_<DB>_PASSWORD} and {@code ROWQUEUE_TCK_<DB>_DIALECT} (a dialect to force).
     */
    public static final String ENV_PREFIX = "ROWQUEUE_TCK_";

    private TckTargets() {
    }

    /**
     * Opens a target on a server from its URL and credentials: {@link #driverManager(String, String, String, String)
     * TckTargets::driverManager}, or a dialect module's connection pool.
     */
    @FunctionalInterface
    public interface Connector {
        /**
         * @param name     the report name
         * @param url      the JDBC URL
         * @param user     the user, or {@code null}
         * @param password the password, or {@code null}
         * @return the target
         */
        Target open(String name, String url, String user, String password);
    }

    /**
     * The server named by the environment variables {@code ROWQUEUE_TCK_<database>_URL}, {@code _USER},
     * {@code _PASSWORD} and {@code _DIALECT} (see {@link #ENV_PREFIX}), reached through {@link DriverManager}. When
     * the URL is not set, this fails a JUnit assumption: called from {@link RowQueueTck#target()}, the class does not
     * run and its report says NOT RUN with the variable's name, never passed.
     *
     * @param database the variables' middle part, e.g. {@code "POSTGRES"} for {@code ROWQUEUE_TCK_POSTGRES_URL}
     * @param label    the start of the report name, e.g. "PostgreSQL server"
     * @return the target, named e.g. "PostgreSQL server at jdbc:postgresql://db:5432/test (ROWQUEUE_TCK_POSTGRES_URL)"
     * @throws org.opentest4j.TestAbortedException if the URL is not set
     */
    public static Target fromEnvironment(String database, String label) {
        return fromEnvironment(database, label, TckTargets::driverManager);
    }

    /**
     * {@link #fromEnvironment(String, String)} with connections from the caller, e.g. a pool.
     *
     * @param database  the variables' middle part, e.g. {@code "MARIADB"}
     * @param label     the start of the report name, e.g. "MariaDB server"
     * @param connector opens the target on the URL and credentials
     * @return the target, with the dialect of {@code _DIALECT} forced when it is set
     * @throws org.opentest4j.TestAbortedException if the URL is not set
     */
    public static Target fromEnvironment(String database, String label, Connector connector) {
        Optional<ConfiguredTarget.Settings> settings = settingsFromEnvironment(database, label);
        Assumptions.assumeTrue(settings.isPresent(), () -> ENV_PREFIX + database + "_URL is not set: no " + label
                + " to run on");
        return open(settings.get(), connector);
    }

    /**
     * What the environment variables of {@link #fromEnvironment(String, String)} name, for a program that reaches the
     * server its own way.
     *
     * @param database the variables' middle part, e.g. {@code "POSTGRES"}
     * @param label    the start of the report name, e.g. "PostgreSQL server"
     * @return the settings, or empty when {@code ROWQUEUE_TCK_<database>_URL} is not set or blank
     */
    public static Optional<ConfiguredTarget.Settings> settingsFromEnvironment(String database, String label) {
        return settingsFromEnvironment(database, label, System.getenv());
    }

    static Optional<ConfiguredTarget.Settings> settingsFromEnvironment(String database, String label,
                                                                       Map<String, String> env) {
        String prefix = ENV_PREFIX + database + "_";
        String url = env.get(prefix + "URL");
        if (url == null || url.isBlank()) {
            return Optional.empty();
        }
        String dialect = env.get(prefix + "DIALECT");
        return Optional.of(new ConfiguredTarget.Settings(
                label + " at " + ConfiguredTarget.displayUrl(url) + " (" + prefix + "URL)", url,
                env.get(prefix + "USER"), env.get(prefix + "PASSWORD"),
                dialect == null || dialect.isBlank() ? null : dialect, Map.of()));
    }

    /**
     * The one way settings become a target, for {@link #fromEnvironment} and {@link ConfiguredTarget}: the connector
     * opens it, then the settings' dialect and options apply.
     */
    static Target open(ConfiguredTarget.Settings settings, Connector connector) {
        Target t = connector.open(settings.name(), settings.url(), settings.user(), settings.password());
        Map<String, String> options = new HashMap<>(t.options());
        options.putAll(settings.options());
        return new Target(t.name(), t.dataSource(), settings.dialect() != null ? settings.dialect() : t.forcedDialect(),
                options, t.onClose());
    }

    /**
     * A target reached through {@link DriverManager}, one new connection per request (no pool), counted for the
     * report (see {@link OpenedConnections}). Right for embedded databases; for servers, prefer a pooled data source.
     *
     * @param name     the report name
     * @param url      the JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     * @return the target
     */
    public static Target driverManager(String name, String url, String user, String password) {
        return new Target(name, new OpenedConnections(new DriverManagerDataSource(url, user, password)), null,
                Map.of(), () -> { });
    }

    /**
     * A target with a data source of the caller's.
     *
     * @param name       the report name
     * @param dataSource the data source
     * @param onClose    what closing the target does
     * @return the target
     */
    public static Target of(String name, DataSource dataSource, AutoCloseable onClose) {
        return new Target(name, dataSource, null, Map.of(), onClose);
    }

    /**
     * An immutable target; {@code with...} methods return variants.
     *
     * @param name       report name
     * @param dataSource connections
     * @param forcedDialect forced dialect, or {@code null}
     * @param options    dialect options
     * @param onClose    what closing does
     */
    public record Target(String name, DataSource dataSource, String forcedDialect, Map<String, String> options,
                         AutoCloseable onClose) implements TckTarget {
        /** Validates. */
        public Target {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(dataSource, "dataSource");
            options = Map.copyOf(options);
        }

        @Override
        public Optional<String> dialect() {
            return Optional.ofNullable(forcedDialect);
        }

        @Override
        public Map<String, String> dialectOptions() {
            return options;
        }

        /**
         * @param forced a dialect name
         * @param newName the report name of the variant
         * @return this target with the dialect forced
         */
        public Target withDialect(String forced, String newName) {
            return new Target(newName, dataSource, forced, options, onClose);
        }

        /**
         * @param key   a dialect option
         * @param value its value
         * @param newName the report name of the variant
         * @return this target with the option set
         */
        public Target withOption(String key, String value, String newName) {
            Map<String, String> o = new HashMap<>(options);
            o.put(key, value);
            return new Target(newName, dataSource, forcedDialect, o, onClose);
        }

        @Override
        public void close() throws Exception {
            onClose.close();
        }
    }
}
