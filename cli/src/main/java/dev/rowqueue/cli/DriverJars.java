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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceConfigurationError;
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
        Iterator<Driver> drivers = ServiceLoader.load(Driver.class, loader).iterator();
        while (true) {
            Driver driver;
            try {
                if (!drivers.hasNext()) {
                    break;
                }
                driver = drivers.next();
            } catch (ServiceConfigurationError | LinkageError e) {
                throw cannotLoad(paths, e);
            }
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

    /**
     * A driver declared in the jars that cannot be loaded, most often because a class it needs is in a jar that was
     * not given (Derby's derbyclient.jar needs derbyshared.jar).
     *
     * @param paths what was given
     * @param e     what loading the driver threw
     * @return the error, with {@link ExitCode#DATABASE}, naming the missing class and where it usually comes from
     */
    static CliException cannotLoad(List<Path> paths, Throwable e) {
        String missing = missingClass(e);
        StringBuilder m = new StringBuilder("cannot load the JDBC driver in ").append(paths).append(": ");
        m.append(firstLine(e.getMessage() == null ? e.toString() : e.getMessage()));
        if (missing != null) {
            m.append("; it needs the class ").append(missing).append(", which none of the given jars holds");
            String jar = usualJar(missing);
            m.append(jar != null ? " (it usually comes in " + jar + ")"
                    : " (add the jar that holds package " + packageOf(missing) + ")");
            m.append(": add that jar with another --driver-jar, or give the directory holding the driver's jars");
        }
        return new CliException(ExitCode.DATABASE, m.toString(), e);
    }

    /** @return the binary name of the class whose absence made loading fail, along the cause chain, or null */
    static String missingClass(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotFoundException && t.getMessage() != null) {
                return t.getMessage().strip();
            }
            if (t instanceof NoClassDefFoundError && t.getMessage() != null) {
                String name = t.getMessage().strip();
                if (name.startsWith("Could not initialize class ")) {
                    continue;
                }
                return name.replace('/', '.');
            }
        }
        return null;
    }

    /**
     * Jars known to split a driver's classes, by package prefix: a hint, the one place such names are written.
     * A class of another package is named with its package instead.
     */
    private static final Map<String, String> USUAL_JARS = Map.of(
            "org.apache.derby.shared.", "derbyshared.jar (Maven: org.apache.derby:derbyshared)",
            "org.apache.derby.client.", "derbyclient.jar (Maven: org.apache.derby:derbyclient)",
            "org.apache.derby.tools.", "derbytools.jar (Maven: org.apache.derby:derbytools)",
            "oracle.i18n.", "orai18n.jar (Maven: com.oracle.database.nls:orai18n)");

    /** @return the hint of {@link #USUAL_JARS} for a class, or {@code null} */
    static String usualJar(String className) {
        return USUAL_JARS.entrySet().stream().filter(e -> className.startsWith(e.getKey()))
                .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "(default)" : className.substring(0, dot);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
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
