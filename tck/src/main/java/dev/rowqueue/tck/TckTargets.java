package dev.rowqueue.tck;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Ready-made targets. */
public final class TckTargets {
    private TckTargets() {
    }

    /**
     * A target reached through {@link DriverManager}, one new connection per request (no pool). Right for embedded
     * databases; for servers, prefer a pooled data source.
     *
     * @param name     the report name
     * @param url      the JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     * @return the target
     */
    public static Target driverManager(String name, String url, String user, String password) {
        return new Target(name, new DriverManagerDataSource(url, user, password), null, Map.of(), () -> { });
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
            Map<String, String> o = new java.util.HashMap<>(options);
            o.put(key, value);
            return new Target(newName, dataSource, forcedDialect, o, onClose);
        }

        @Override
        public void close() throws Exception {
            onClose.close();
        }
    }

    /** A minimal data source over {@link DriverManager}. */
    public static final class DriverManagerDataSource extends SimpleDataSource {
        private final String url;
        private final String user;
        private final String password;

        /**
         * @param url      the JDBC URL
         * @param user     the user, or {@code null}
         * @param password the password, or {@code null}
         */
        public DriverManagerDataSource(String url, String user, String password) {
            this.url = url;
            this.user = user;
            this.password = password;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return user == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, user, password);
        }

        @Override
        public Connection getConnection(String u, String p) throws SQLException {
            return DriverManager.getConnection(url, u, p);
        }

        @Override
        public PrintWriter getLogWriter() {
            return DriverManager.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            DriverManager.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) {
            DriverManager.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() {
            return DriverManager.getLoginTimeout();
        }

        @Override
        public String toString() {
            return "DriverManagerDataSource[" + url + "]";
        }
    }
}
