package dev.rowqueue.tck;

import dev.rowqueue.testkit.DriverManagerDataSource;
import javax.sql.DataSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A database under test that is not written into a test class but configured at run time: by a program through
 * {@link #use(Settings)} (the {@code rowqueue tck} command does this), or else by system properties:
 *
 * <table>
 *   <caption>System properties</caption>
 *   <tr><th>Property</th><th>Meaning</th></tr>
 *   <tr><td>{@code rowqueue.tck.url}</td><td>the JDBC URL (required)</td></tr>
 *   <tr><td>{@code rowqueue.tck.user}</td><td>the user (optional)</td></tr>
 *   <tr><td>{@code rowqueue.tck.password}</td><td>the password (optional; the environment variable
 *       {@code ROWQUEUE_PASSWORD} is read when it is absent)</td></tr>
 *   <tr><td>{@code rowqueue.tck.dialect}</td><td>a dialect to force instead of detecting one (optional)</td></tr>
 *   <tr><td>{@code rowqueue.tck.name}</td><td>the name in the report (optional; default: the URL without its
 *       parameters)</td></tr>
 * </table>
 *
 * <p>Connections come from {@link java.sql.DriverManager}, one per request (or from the connector given to
 * {@link #use(Settings, TckTargets.Connector)}, such as a pool), built the way
 * {@link TckTargets#fromEnvironment(String, String)} builds a server named by environment variables (whose
 * {@link Settings} these are too). {@link ConfiguredTck} runs the whole kit against this target.
 */
public final class ConfiguredTarget implements TckTarget {

    /** System property: the JDBC URL. */
    public static final String URL = "rowqueue.tck.url";
    /** System property: the user. */
    public static final String USER = "rowqueue.tck.user";
    /** System property: the password. */
    public static final String PASSWORD = "rowqueue.tck.password";
    /** System property: a dialect to force. */
    public static final String DIALECT = "rowqueue.tck.dialect";
    /** System property: the report name. */
    public static final String NAME = "rowqueue.tck.name";
    /** Environment variable read for the password when no setting or property gives one. */
    public static final String PASSWORD_ENV = "ROWQUEUE_PASSWORD";

    private static volatile Settings held;
    private static volatile TckTargets.Connector heldConnector;

    private final TckTargets.Target target;

    private ConfiguredTarget(Settings settings, TckTargets.Connector connector) {
        this.target = TckTargets.open(settings, connector);
    }

    /**
     * What the kit should run against.
     *
     * @param name     the report name, or {@code null} for the URL without its parameters
     * @param url      the JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     * @param dialect  a dialect to force, or {@code null} to detect one
     * @param options  dialect options
     */
    public record Settings(String name, String url, String user, String password, String dialect,
                           Map<String, String> options) {
        /** Validates and copies. */
        public Settings {
            Objects.requireNonNull(url, "url");
            if (name == null || name.isBlank()) {
                name = displayUrl(url);
            }
            options = Map.copyOf(options);
        }

        /** Hides the password in {@code toString()}. */
        @Override
        public String toString() {
            return "Settings[name=" + name + ", url=" + displayUrl(url) + ", user=" + user + ", dialect=" + dialect
                    + ", options=" + options + "]";
        }
    }

    /**
     * Sets the target for the next runs of {@link ConfiguredTck} in this JVM; it wins over system properties.
     *
     * @param settings the target, or {@code null} to fall back to system properties again
     */
    public static void use(Settings settings) {
        use(settings, null);
    }

    /**
     * Sets the target and how to reach it, e.g. through a connection pool (the {@code rowqueue tck} command's
     * HikariCP pool): the connector's target is closed after the run.
     *
     * @param settings  the target, or {@code null} to fall back to system properties again
     * @param connector opens the target, or {@code null} for {@link TckTargets#driverManager}
     */
    public static void use(Settings settings, TckTargets.Connector connector) {
        held = settings;
        heldConnector = settings == null ? null : connector;
    }

    /** @return whether a target is configured, by {@link #use} or by the {@value #URL} system property */
    public static boolean isConfigured() {
        return current().isPresent();
    }

    /** @return the configured settings: those given to {@link #use}, else those of the system properties */
    public static Optional<Settings> current() {
        Settings s = held;
        if (s != null) {
            return Optional.of(s);
        }
        String url = System.getProperty(URL);
        if (url == null || url.isBlank()) {
            return Optional.empty();
        }
        String password = System.getProperty(PASSWORD, System.getenv(PASSWORD_ENV));
        return Optional.of(new Settings(System.getProperty(NAME), url, System.getProperty(USER), password,
                System.getProperty(DIALECT), new LinkedHashMap<>()));
    }

    /**
     * @return the target of the current configuration
     * @throws IllegalStateException if nothing is configured
     */
    public static ConfiguredTarget create() {
        TckTargets.Connector connector = held != null ? heldConnector : null;
        return new ConfiguredTarget(current().orElseThrow(() -> new IllegalStateException(
                "no TCK target configured: call ConfiguredTarget.use(...) or set -D" + URL + "=<JDBC URL>")),
                connector != null ? connector : TckTargets::driverManager);
    }

    /**
     * A JDBC URL without its parameters and user information (either may hold a password), for reports and logs.
     *
     * @param url a JDBC URL
     * @return as {@link DriverManagerDataSource#displayUrl(String)}
     */
    public static String displayUrl(String url) {
        return DriverManagerDataSource.displayUrl(url);
    }

    @Override
    public String name() {
        return target.name();
    }

    @Override
    public DataSource dataSource() {
        return target.dataSource();
    }

    @Override
    public Optional<String> dialect() {
        return target.dialect();
    }

    @Override
    public Map<String, String> dialectOptions() {
        return target.dialectOptions();
    }

    @Override
    public void close() throws Exception {
        target.close();
    }
}
