package dev.rowqueue.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Loads JDBC drivers (and dialect modules) from jars given at run time, for drivers the jar does not bundle because
 * their licences make redistribution doubtful (MySQL Connector/J, Oracle's ojdbc, IBM's db2jcc).
 *
 * <p>{@link DriverManager} only hands out drivers whose class its caller's class loader can see, so a driver loaded
 * by a {@link URLClassLoader} is registered through a {@link Shim} loaded by the application class loader. The loader
 * also becomes the thread's context class loader while a command runs, so {@link ServiceLoader} discovery of
 * {@code dev.rowqueue.spi.DialectProvider}s finds dialect modules in those jars too.
 */
public final class DriverJars {
    private static final Logger log = LoggerFactory.getLogger(DriverJars.class);
    private static final Set<String> REGISTERED = ConcurrentHashMap.newKeySet();

    private DriverJars() {
    }

    /**
     * Opens a class loader over the given jars (a directory stands for every jar in it) and registers the JDBC
     * drivers they declare in {@code META-INF/services/java.sql.Driver}.
     *
     * @param paths  jar files or directories
     * @param parent the parent class loader
     * @return the loader, or {@code parent} itself when {@code paths} is empty
     * @throws CliException with {@link ExitCode#USAGE} when a path is missing
     */
    public static ClassLoader load(List<Path> paths, ClassLoader parent) {
        if (paths == null || paths.isEmpty()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (Path p : paths) {
            for (Path jar : jars(p)) {
                try {
                    urls.add(jar.toUri().toURL());
                } catch (MalformedURLException e) {
                    throw new CliException(ExitCode.USAGE, "not a usable path: " + jar, e);
                }
            }
        }
        URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), parent);
        int found = 0;
        for (Driver driver : ServiceLoader.load(Driver.class, loader)) {
            if (driver.getClass().getClassLoader() == loader) {
                register(driver);
                found++;
            }
        }
        if (found == 0) {
            log.warn("rowqueue: no JDBC driver declared in META-INF/services/java.sql.Driver of {}", paths);
        }
        return loader;
    }

    private static List<Path> jars(Path p) {
        if (Files.isDirectory(p)) {
            try (Stream<Path> files = Files.list(p)) {
                return files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
            } catch (IOException e) {
                throw new CliException(ExitCode.USAGE, "cannot list driver directory " + p + ": " + e.getMessage(), e);
            }
        }
        if (!Files.isRegularFile(p)) {
            throw new CliException(ExitCode.USAGE, "driver jar not found: " + p);
        }
        return List.of(p);
    }

    private static void register(Driver driver) {
        String key = driver.getClass().getName() + "@" + System.identityHashCode(driver.getClass().getClassLoader());
        if (!REGISTERED.add(key)) {
            return;
        }
        try {
            DriverManager.registerDriver(new Shim(driver));
            log.debug("registered JDBC driver {} {}.{}", driver.getClass().getName(), driver.getMajorVersion(),
                    driver.getMinorVersion());
        } catch (SQLException e) {
            throw new CliException(ExitCode.DATABASE, "cannot register JDBC driver " + driver.getClass().getName()
                    + ": " + e.getMessage(), e);
        }
    }

    /** A driver of the application class loader that delegates to one loaded from a run-time jar. */
    static final class Shim implements Driver {
        private final Driver driver;

        Shim(Driver driver) {
            this.driver = driver;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            return driver.connect(url, info);
        }

        @Override
        public boolean acceptsURL(String url) throws SQLException {
            return driver.acceptsURL(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
            return driver.getPropertyInfo(url, info);
        }

        @Override
        public int getMajorVersion() {
            return driver.getMajorVersion();
        }

        @Override
        public int getMinorVersion() {
            return driver.getMinorVersion();
        }

        @Override
        public boolean jdbcCompliant() {
            return driver.jdbcCompliant();
        }

        @Override
        public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return driver.getParentLogger();
        }

        @Override
        public String toString() {
            return "Shim[" + driver.getClass().getName() + "]";
        }
    }
}
