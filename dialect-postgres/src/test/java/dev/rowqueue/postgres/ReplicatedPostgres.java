package dev.rowqueue.postgres;

import dev.rowqueue.testkit.EmbeddedPostgresServer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.util.LinuxUtils;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A PostgreSQL primary and a hot standby fed by streaming replication, on loopback, from zonky's binaries of the
 * newest version the build copied ({@link EmbeddedPostgresServer#NEWEST}): the standby is made from a hot base backup
 * of the running primary ({@code pg_backup_start} / {@code pg_backup_stop} and a file copy, so no
 * {@code pg_basebackup} is needed) and streams from a physical replication slot. In {@link Mode#SYNCHRONOUS} mode the
 * primary names it in {@code synchronous_standby_names} ({@code synchronous_commit} stays {@code on}): a commit is
 * acknowledged once the standby has flushed it.
 *
 * <p>Two nodes take turns on two fixed loopback ports, so clients use one URL for the whole run:
 * {@code jdbc:postgresql://127.0.0.1:<a>,127.0.0.1:<b>/<db>?targetServerType=primary}. {@link #killPrimary()} sends
 * SIGKILL to the primary's postmaster and every process under it (what a lost machine looks like to the standby);
 * {@link #promoteStandby()} runs {@code pg_promote()}; {@link #rebuildStandby()} makes a new standby of the new
 * primary on the dead node's port, so one instance can fail over any number of times. The promoted node runs without
 * a synchronous standby until the new one has caught up (else every commit would wait for it).
 *
 * <p>Run as root, every server process starts under {@code unshare -U}, as zonky's own embedded servers do
 * ({@link EmbeddedPostgresServer}): PostgreSQL refuses to run as root, and in a new user namespace the process is the
 * unprivileged overflow user while its files stay the real user's. Ports are free ones picked at start, files live
 * in one temporary directory, and {@link #close()} (or a shutdown hook, as a backstop) stops every server and deletes
 * it.
 */
final class ReplicatedPostgres implements AutoCloseable {

    /** How the standby acknowledges commits. */
    enum Mode {
        /** {@code synchronous_standby_names} names the standby: a commit returns once the standby flushed it. */
        SYNCHRONOUS,
        /** The primary does not wait for the standby: a commit may return before the standby has it. */
        ASYNCHRONOUS
    }

    /** One server: a data directory and, while it runs, its postmaster. */
    static final class Node {
        final String name;
        final int port;
        final Path data;
        final Path log;
        Process process;
        /** When its postmaster was killed with SIGKILL ({@link System#nanoTime()}, its children right after), or 0. */
        volatile long killedAt;
        /** When every process of the killed node was seen gone ({@link System#nanoTime()}), or 0. */
        volatile long goneAt;
        /** When {@code pg_promote()} was sent to it ({@link System#nanoTime()}), or 0. */
        volatile long promotedAt;

        Node(String name, int port, Path data, Path log) {
            this.name = name;
            this.port = port;
            this.data = data;
            this.log = log;
        }

        /** @return the postmaster's process id */
        long pid() {
            return process.pid();
        }

        @Override
        public String toString() {
            return name + " (port " + port + ")";
        }
    }

    /**
     * The address a standby streams from (every node listens on it too): clients use 127.0.0.1, so a
     * {@code LoopbackFirewall} cut between 127.0.0.1 and this address parts the standby from its primary and nothing
     * else.
     */
    static final String REPLICATION_HOST = "127.0.0.31";

    private static final Set<ReplicatedPostgres> OPEN = ConcurrentHashMap.newKeySet();
    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(60);
    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> List.copyOf(OPEN).forEach(ReplicatedPostgres::close),
                "replicated-postgres-stop"));
    }

    private final Mode mode;
    private final String version;
    private final Path bin;
    private final Path directory;
    private final int[] ports;
    private final List<String> databases;
    private int nodes;
    private volatile Node primary;
    private volatile Node standby;
    private final List<Long> killedPostmasters = new ArrayList<>();

    private ReplicatedPostgres(Mode mode, String version, Path bin, Path directory, int[] ports,
                               List<String> databases) {
        this.mode = mode;
        this.version = version;
        this.bin = bin;
        this.directory = directory;
        this.ports = ports;
        this.databases = databases;
    }

    /**
     * Starts a primary with the given databases and a standby streaming from it.
     *
     * @param mode      synchronous or asynchronous replication
     * @param databases databases to create on the primary (the standby gets them from the backup)
     * @return the running pair
     */
    static ReplicatedPostgres start(Mode mode, String... databases) {
        String version = EmbeddedPostgresServer.NEWEST;
        ReplicatedPostgres pg;
        try {
            pg = new ReplicatedPostgres(mode, version, binaries(version),
                    Files.createTempDirectory("rowqueue-pg-replicated-"), new int[] {freePort(), freePort()},
                    List.of(databases));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare a replicated PostgreSQL " + version, e);
        }
        OPEN.add(pg);
        try {
            pg.startPrimary();
            pg.rebuildStandby();
            return pg;
        } catch (RuntimeException | Error e) {
            pg.close();
            throw e;
        }
    }

    /** @return e.g. "18.6.0" */
    String version() {
        return version;
    }

    /** @return how the standby acknowledges commits */
    Mode mode() {
        return mode;
    }

    /** @return the primary */
    synchronized Node primary() {
        return primary;
    }

    /** @return the standby, or {@code null} between a promotion and {@link #rebuildStandby()} */
    synchronized Node standby() {
        return standby;
    }

    /**
     * @param database a database
     * @return the URL clients use: both ports, {@code targetServerType=primary}
     */
    String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + "/" + database
                + "?targetServerType=primary";
    }

    /**
     * @param node     a node
     * @param database a database
     * @return a URL of that node alone
     */
    static String url(Node node, String database) {
        return "jdbc:postgresql://127.0.0.1:" + node.port + "/" + database;
    }

    /**
     * @param node     a node
     * @param database a database
     * @return a new connection to it, in auto-commit mode
     * @throws SQLException if it cannot connect
     */
    static Connection connect(Node node, String database) throws SQLException {
        return DriverManager.getConnection(url(node, database) + "?ApplicationName=replicated-postgres", "postgres",
                "");
    }

    /**
     * A small HikariCP pool with HikariCP's defaults but a 5 s connection timeout.
     *
     * @param url             a URL: {@link #url(String)} or {@link #url(Node, String)}
     * @param applicationName how its sessions show in {@code pg_stat_activity}
     * @param size            the pool's maximum size
     * @return the pool
     */
    static HikariDataSource pool(String url, String applicationName, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5_000);
        config.setPoolName(applicationName);
        return new HikariDataSource(config);
    }

    /**
     * Kills the primary's postmaster and every process under it with SIGKILL: no shutdown, no last WAL sent. The
     * standby stays a standby until {@link #promoteStandby()}. {@link Node#killedAt} says when.
     *
     * @return the node that was killed
     */
    synchronized Node killPrimary() {
        Node dead = primary;
        kill(dead);
        primary = null;
        return dead;
    }

    /**
     * Kills the standby's processes with SIGKILL. In synchronous mode the primary's commits then wait until a new
     * standby ({@link #rebuildStandby()}) catches up.
     *
     * @return the node that was killed
     */
    synchronized Node killStandby() {
        Node dead = standby;
        kill(dead);
        standby = null;
        return dead;
    }

    /**
     * Promotes the standby with {@code pg_promote()} and waits until it accepts writes.
     *
     * @return the new primary
     */
    synchronized Node promoteStandby() {
        if (standby == null) {
            throw new IllegalStateException("no standby to promote");
        }
        try (Connection c = connect(standby, "postgres"); Statement s = c.createStatement()) {
            standby.promotedAt = System.nanoTime();
            ResultSet rs = s.executeQuery("SELECT pg_promote(true, 60)");
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new IllegalStateException("pg_promote() did not finish on " + standby + ":\n" + tail(standby));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot promote " + standby + ":\n" + tail(standby), e);
        }
        if (primary != null) {
            kill(primary); // never two primaries: a caller that promotes without a kill loses the old one
        }
        primary = standby;
        standby = null;
        await("the promoted " + primary + " accepts writes", () -> !inRecovery(primary));
        return primary;
    }

    /**
     * Makes a new standby of the primary on the free port, from a hot base backup, starts it, waits until it streams
     * and, in synchronous mode, makes it the primary's synchronous standby.
     *
     * @return the new standby
     */
    synchronized Node rebuildStandby() {
        if (standby != null) {
            throw new IllegalStateException("there is a standby already: " + standby);
        }
        int port = primary.port == ports[0] ? ports[1] : ports[0];
        Node node = newNode(port);
        try {
            try (Connection c = connect(primary, "postgres"); Statement s = c.createStatement()) {
                s.execute("SELECT pg_create_physical_replication_slot('" + node.name + "', true)");
                s.execute("SELECT pg_backup_start('" + node.name + "', true)");
                copyDataDirectory(primary.data, node.data);
                try (ResultSet rs = s.executeQuery("SELECT labelfile, spcmapfile FROM pg_backup_stop(false)")) {
                    rs.next();
                    Files.writeString(node.data.resolve("backup_label"), rs.getString(1));
                    String map = rs.getString(2);
                    if (map != null && !map.isEmpty()) {
                        Files.writeString(node.data.resolve("tablespace_map"), map);
                    }
                }
            }
            Files.createFile(node.data.resolve("standby.signal"));
            Files.writeString(node.data.resolve("postgresql.auto.conf"), String.join("\n",
                    "primary_conninfo = 'host=" + REPLICATION_HOST + " port=" + primary.port
                            + " user=postgres application_name="
                            + node.name + "'",
                    "primary_slot_name = '" + node.name + "'",
                    "synchronous_standby_names = ''", // a promoted standby writes alone until it has a standby
                    ""));
            launch(node);
            standby = node;
            String streaming = "SELECT COUNT(*) FROM pg_stat_replication WHERE application_name = '" + node.name
                    + "' AND state = 'streaming'";
            await(node + " streams from " + primary, () -> queryLong(primary, streaming) == 1);
            if (mode == Mode.SYNCHRONOUS) {
                try (Connection c = connect(primary, "postgres"); Statement s = c.createStatement()) {
                    s.execute("ALTER SYSTEM SET synchronous_standby_names = '\"" + node.name + "\"'");
                    s.execute("SELECT pg_reload_conf()");
                }
                await(node + " is the synchronous standby of " + primary, () -> queryLong(primary,
                        streaming + " AND sync_state = 'sync'") == 1);
            }
            return node;
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("cannot make a standby of " + primary + ":\n" + tail(node), e);
        }
    }

    /**
     * Sends a signal to a node's postmaster and every process under it: {@code STOP} stalls the whole server (its
     * sessions too), as a paused machine would; {@code CONT} resumes it.
     *
     * @param node   the node
     * @param signal the signal's name
     */
    static void signal(Node node, String signal) {
        List<ProcessHandle> all = new java.util.ArrayList<>(List.of(node.process.toHandle()));
        all.addAll(node.process.descendants().toList());
        for (ProcessHandle p : all) {
            if (p.isAlive()) {
                dev.rowqueue.testkit.Signals.send(p.pid(), signal);
            }
        }
    }

    /**
     * Terminates the client sessions of a database on the primary ({@code pg_terminate_backend}), mid-transaction or
     * not.
     *
     * @param database the database
     * @return how many were terminated
     */
    synchronized int terminateClients(String database) {
        if (primary == null) {
            return 0;
        }
        return (int) queryLong(primary, "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '"
                + database + "' AND pid <> pg_backend_pid() AND backend_type = 'client backend'");
    }

    /**
     * @return whether the primary has a standby streaming from it, and (in synchronous mode) as its synchronous
     *         standby: commits are on both again
     */
    synchronized boolean standbyStreaming() {
        if (primary == null || standby == null) {
            return false;
        }
        return queryLong(primary, "SELECT COUNT(*) FROM pg_stat_replication WHERE state = 'streaming'"
                + (mode == Mode.SYNCHRONOUS ? " AND sync_state = 'sync'" : "")) == 1;
    }

    /**
     * How far the standby's replay is behind the primary's current WAL position, in bytes.
     *
     * @return the lag, or -1 without a standby
     */
    synchronized long replayLagBytes() {
        if (standby == null) {
            return -1;
        }
        String position = String.valueOf(queryString(primary, "SELECT pg_current_wal_lsn()"));
        return queryLong(standby, "SELECT pg_wal_lsn_diff('" + position + "', pg_last_wal_replay_lsn())");
    }

    @Override
    public synchronized void close() {
        if (!OPEN.remove(this)) {
            return;
        }
        for (Node node : new Node[] {standby, primary}) {
            if (node != null && node.process != null) {
                stop(node);
            }
        }
        standby = null;
        primary = null;
        removeSharedMemory();
        deleteQuietly(directory);
    }

    // ---------------------------------------------------------------- servers

    private void startPrimary() {
        Node node = newNode(ports[0]);
        run(List.of(bin.resolve("initdb").toString(), "-A", "trust", "-U", "postgres", "-E", "UTF-8", "--no-sync",
                "-D", node.data.toString()), node.log);
        try {
            Files.writeString(node.data.resolve("postgresql.conf"), String.join("\n",
                    "",
                    "# rowqueue's replicated test pair",
                    "listen_addresses = '127.0.0.1," + REPLICATION_HOST + "'",
                    "unix_socket_directories = ''",
                    "max_connections = 200",
                    "wal_level = replica",
                    "max_wal_senders = 10",
                    "max_replication_slots = 10",
                    "hot_standby = on",
                    "wal_log_hints = on",
                    // servers are killed, never their machine: the kernel keeps what was written, so fsync only
                    // costs time here (a commit still waits for the standby's flush report in synchronous mode)
                    "fsync = off",
                    "full_page_writes = on",
                    "logging_collector = off",
                    "log_min_messages = warning",
                    "log_min_error_statement = panic",
                    ""), StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        launch(node);
        primary = node;
        try (Connection c = connect(node, "postgres"); Statement s = c.createStatement()) {
            for (String database : databases) {
                s.execute("CREATE DATABASE " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the databases on " + node, e);
        }
    }

    private Node newNode(int port) {
        String name = "node" + (++nodes);
        Path data = directory.resolve(name);
        try {
            Files.createDirectory(data, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Node(name, port, data, directory.resolve(name + ".log"));
    }

    /** Starts the postmaster of a node as a child of this JVM and waits until it accepts connections. */
    private void launch(Node node) {
        List<String> command = wrapped(List.of(bin.resolve("postgres").toString(), "-D", node.data.toString(), "-p",
                String.valueOf(node.port)));
        try {
            node.process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + node, e);
        }
        await(node + " accepts connections", () -> {
            if (!node.process.isAlive()) {
                throw new IllegalStateException(node + " exited with " + node.process.exitValue() + ":\n"
                        + tail(node));
            }
            try (Connection c = connect(node, "postgres")) {
                return c.isValid(5);
            } catch (SQLException e) {
                return false;
            }
        });
    }

    /**
     * SIGKILL to the postmaster, then at once to every process it started (each PostgreSQL child is a session of its
     * own, so no process group reaches them all); then to any process of these binaries that no running node owns: a
     * backend forked between the list of children and the postmaster's death.
     */
    private void kill(Node node) {
        List<ProcessHandle> children = node.process.descendants().toList();
        node.process.destroyForcibly();
        node.killedAt = System.nanoTime();
        children.forEach(ProcessHandle::destroyForcibly);
        Set<Long> owned = new HashSet<>(); // the postmasters of every node still running in this JVM
        for (ReplicatedPostgres open : OPEN) {
            for (Node live : new Node[] {open.primary, open.standby}) {
                Process p = live == null || live == node ? null : live.process;
                if (p != null) {
                    owned.add(p.pid());
                }
            }
        }
        String postgres = bin.resolve("postgres").toAbsolutePath().toString();
        ProcessHandle.allProcesses().filter(p -> p.info().command().map(postgres::equals).orElse(false))
                .filter(p -> !owned.contains(p.pid()) && p.parent().map(ProcessHandle::pid).map(owned::contains)
                        .map(b -> !b).orElse(true))
                .forEach(ProcessHandle::destroyForcibly);
        try {
            if (!node.process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(node + " did not die of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + node, e);
        }
        await("the processes of the killed " + node + " are gone", () -> children.stream()
                .allMatch(ReplicatedPostgres::gone));
        node.goneAt = System.nanoTime();
        killedPostmasters.add(node.pid());
        node.process = null;
    }

    /**
     * @return whether a process ended: gone, or a zombie (its sockets are closed; whoever adopted it reaps it later)
     */
    private static boolean gone(ProcessHandle process) {
        if (!process.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Paths.get("/proc", String.valueOf(process.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("Z");
        } catch (IOException | RuntimeException e) {
            return !process.isAlive();
        }
    }

    /** Immediate shutdown (SIGQUIT: no checkpoint, the postmaster still removes its shared memory), else SIGKILL. */
    private void stop(Node node) {
        try {
            new ProcessBuilder("kill", "-QUIT", String.valueOf(node.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
            if (node.process.waitFor(20, TimeUnit.SECONDS)) {
                node.process = null;
                return;
            }
        } catch (IOException e) {
            // no kill command: SIGKILL below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill(node);
    }

    /**
     * A killed postmaster leaves its small System V interlock segment behind (nobody attached); this removes the
     * ones of the postmasters this instance killed.
     */
    private void removeSharedMemory() {
        Path table = Paths.get("/proc/sysvipc/shm");
        if (killedPostmasters.isEmpty() || !Files.isReadable(table)) {
            return;
        }
        try (Stream<String> lines = Files.lines(table)) {
            for (String line : (Iterable<String>) lines.skip(1)::iterator) {
                String[] f = line.trim().split("\\s+");
                // key shmid perms size cpid lpid nattch ...
                if (f.length > 6 && killedPostmasters.contains(Long.parseLong(f[4])) && f[6].equals("0")) {
                    new ProcessBuilder("ipcrm", "-m", f[1]).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort: a leftover segment of a few bytes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs a command (initdb) to its end. */
    private void run(List<String> command, Path log) {
        try {
            Process p = new ProcessBuilder(wrapped(command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with " + p.exitValue() + ":\n"
                        + Files.readString(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** PostgreSQL refuses root: as root, in a user namespace of its own (zonky's way). */
    private static List<String> wrapped(List<String> command) {
        if (!LinuxUtils.isUnshareAvailable()) {
            return command;
        }
        List<String> all = new ArrayList<>(List.of("unshare", "-U"));
        all.addAll(command);
        return all;
    }

    // ---------------------------------------------------------------- base backup

    /**
     * Copies a running server's data directory between {@code pg_backup_start} and {@code pg_backup_stop}, leaving
     * out what the documentation says a base backup omits (WAL, slots, temporary and per-run files); files that vanish
     * during the copy are skipped (recovery replays them from WAL).
     */
    private static void copyDataDirectory(Path from, Path to) throws IOException {
        Set<String> skipFiles = Set.of("postmaster.pid", "postmaster.opts", "backup_label", "backup_label.old",
                "tablespace_map", "standby.signal", "recovery.signal", "pg_internal.init");
        Set<String> emptyDirs = Set.of("pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem", "pg_notify",
                "pg_serial", "pg_snapshots", "pg_subtrans");
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(dir).toString());
                try {
                    Files.createDirectories(target);
                    Files.setPosixFilePermissions(target, Set.of(PosixFilePermission.OWNER_READ,
                            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
                } catch (FileAlreadyExistsException e) {
                    // the root
                }
                Path relative = from.relativize(dir);
                boolean inEmptied = relative.getNameCount() >= 1 && emptyDirs.contains(relative.getName(0).toString());
                if (inEmptied && relative.getName(0).toString().equals("pg_wal")) {
                    return FileVisitResult.CONTINUE; // keep archive_status/ and summaries/, no segments (below)
                }
                return inEmptied && relative.getNameCount() == 1 ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path relative = from.relativize(file);
                if (skipFiles.contains(file.getFileName().toString()) || relative.getName(0).toString().equals("pg_wal")
                        || !attrs.isRegularFile()) {
                    return FileVisitResult.CONTINUE;
                }
                try {
                    Files.copy(file, to.resolve(relative.toString()), StandardCopyOption.REPLACE_EXISTING);
                } catch (NoSuchFileException e) {
                    // dropped during the copy: WAL replay knows
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    // ---------------------------------------------------------------- helpers

    private static boolean inRecovery(Node node) {
        try (Connection c = connect(node, "postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            return true;
        }
    }

    private static long queryLong(Node node, String sql) {
        return Long.parseLong(String.valueOf(queryString(node, sql)));
    }

    private static String queryString(Node node, String sql) {
        try (Connection c = connect(node, "postgres"); PreparedStatement s = c.prepareStatement(sql);
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(node + ": " + sql + ": " + e.getMessage(), e);
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out: " + what);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting: " + what, e);
            }
        }
    }

    private static String tail(Node node) {
        try {
            String text = Files.readString(node.log, StandardCharsets.UTF_8);
            return text.length() <= 3000 ? text : "..." + text.substring(text.length() - 3000);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory; the OS cleans it eventually
        }
    }

    /**
     * The binaries of a version, unpacked once under the build's {@code target/pg-binaries/} from the jar the build
     * copied there (zonky's {@code .txz} archive: {@code bin/initdb}, {@code bin/postgres}, {@code bin/pg_ctl}, their
     * libraries and share files).
     */
    private static synchronized Path binaries(String version) throws IOException {
        Path dir = Paths.get(System.getProperty("rowqueue.pg.binaries", "target/pg-binaries"));
        Path unpacked = dir.resolve("postgres-" + version);
        if (Files.isExecutable(unpacked.resolve("bin/postgres"))) {
            return unpacked.resolve("bin");
        }
        Path jar = dir.resolve("postgres-" + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no PostgreSQL " + version + " binaries at " + jar.toAbsolutePath()
                    + "; the build copies them there in process-test-resources (run through Maven)");
        }
        Path partial = Files.createTempDirectory(dir, "unpacking-");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry txz = null;
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (entry.getName().endsWith(".txz")) {
                    txz = entry;
                }
            }
            if (txz == null) {
                throw new IOException("no .txz archive in " + jar);
            }
            try (InputStream in = new BufferedInputStream(zip.getInputStream(txz));
                 TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(in))) {
                for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                    Path target = partial.resolve(entry.getName()).normalize();
                    if (!target.startsWith(partial)) {
                        throw new IOException("entry outside the archive: " + entry.getName());
                    }
                    if (entry.isDirectory()) {
                        Files.createDirectories(target);
                    } else if (entry.isSymbolicLink()) {
                        Files.createDirectories(target.getParent());
                        Files.createSymbolicLink(target, Paths.get(entry.getLinkName()));
                    } else {
                        Files.createDirectories(target.getParent());
                        Files.copy(tar, target, StandardCopyOption.REPLACE_EXISTING);
                        if ((entry.getMode() & 0100) != 0) {
                            target.toFile().setExecutable(true, false);
                        }
                    }
                }
            }
        }
        try {
            Files.move(partial, unpacked, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            deleteQuietly(partial); // another JVM unpacked it meanwhile
            if (!Files.isExecutable(unpacked.resolve("bin/postgres"))) {
                throw e;
            }
        }
        return unpacked.resolve("bin");
    }
}
