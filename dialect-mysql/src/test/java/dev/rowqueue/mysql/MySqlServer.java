package dev.rowqueue.mysql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * One MySQL 9.x {@code mysqld} from the {@link SidChroot} on a free loopback port, for tests. Its data directory is a
 * copy of the chroot's initialized template under {@code /dev/shm} (the host's {@code /dev} is bind-mounted into the
 * chroot, so the path is the same inside and out); durability is relaxed ({@code innodb_flush_log_at_trx_commit=2},
 * {@code sync_binlog=0}), nothing else is tuned. Root connects over TCP from 127.0.0.1 without a password.
 *
 * <p>The server runs in a private mount namespace ({@code unshare --mount}) and through {@code setpriv --pdeathsig
 * KILL}, started from a launcher thread that lives as long as the JVM: if the JVM dies without stopping it, the kernel
 * kills it. {@link #close()} stops it (SIGTERM, SIGKILL after 30 s) and deletes its directory; a shutdown hook kills
 * it when the JVM exits normally without closing it.
 */
final class MySqlServer implements AutoCloseable {

    /** How long the server may take to accept connections. */
    private static final long START_MILLIS = 120_000;
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /**
     * Starts every server: PR_SET_PDEATHSIG fires when the thread that forked the child ends, so the forking thread
     * must live as long as the JVM.
     */
    private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "mysqld-launcher");
        t.setDaemon(true);
        return t;
    });

    private final Path rootfs;
    private final Path home;
    private final int port;
    private final List<String> settings;
    private final int uid;
    private final Thread hook = new Thread(this::kill, "mysqld-kill");
    private volatile Process process;
    private String version;
    private long startMillis;

    private MySqlServer(Path rootfs, Path home, int port, List<String> settings, int uid) {
        this.uid = uid;
        this.rootfs = rootfs;
        this.home = home;
        this.port = port;
        this.settings = List.copyOf(settings);
    }

    private static MySqlServer shared;

    /**
     * @return the server shared by the test classes of this JVM (each in a database of its own), started on first use
     *         and stopped when the JVM exits; or a failed JUnit assumption (NOT RUN) where the chroot cannot be made
     */
    static synchronized MySqlServer shared() {
        if (shared == null) {
            MySqlServer s = start();
            Runtime.getRuntime().removeShutdownHook(s.hook);
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "mysqld-stop"));
            shared = s;
        }
        return shared;
    }

    /**
     * Starts a server with the test settings only, or fails a JUnit assumption (NOT RUN) where the chroot cannot be
     * made.
     *
     * @return the running server
     */
    static MySqlServer start() {
        return start(freePorts(1)[0], List.of());
    }

    /**
     * @param port     the SQL port (free)
     * @param settings more {@code --name=value} options for {@code mysqld}
     * @return the running server, from a fresh copy of the template
     */
    static MySqlServer start(int port, List<String> settings) {
        return start(port, settings, -1);
    }

    /**
     * @param port     the SQL port (free)
     * @param settings more {@code --name=value} options for {@code mysqld}
     * @param uid      the user id the server runs as (its files are given to it), or -1 for root: a server of its
     *                 own user can be told apart by a packet filter ({@code iptables -m owner})
     * @return the running server, from a fresh copy of the template
     */
    static MySqlServer start(int port, List<String> settings, int uid) {
        Path rootfs = SidChroot.get();
        try {
            deleteOrphans();
            Path home = Path.of("/dev/shm", "rowqueue-mysql-" + ProcessHandle.current().pid() + "-"
                    + SEQUENCE.incrementAndGet());
            SidChroot.delete(home);
            Files.createDirectories(home.resolve("tmp"));
            copy(rootfs.resolve(SidChroot.TEMPLATE.substring(1)), home.resolve("data"));
            if (uid >= 0) {
                chown(home, uid);
            }
            MySqlServer server = new MySqlServer(rootfs, home, port, settings, uid);
            Runtime.getRuntime().addShutdownHook(server.hook);
            try {
                server.launch();
                return server;
            } catch (RuntimeException | Error e) {
                server.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the directories of servers whose JVM is gone (a JVM that was SIGKILLed could not). */
    private static void deleteOrphans() throws IOException {
        try (Stream<Path> dirs = Files.list(Path.of("/dev/shm"))) {
            for (Path d : dirs.toList()) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("rowqueue-mysql-(\\d+)-\\d+")
                        .matcher(d.getFileName().toString());
                if (m.matches() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    SidChroot.delete(d);
                }
            }
        }
    }

    private static void chown(Path dir, int uid) throws IOException {
        try {
            Process p = new ProcessBuilder("chown", "-R", uid + ":" + uid, dir.toString()).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("chown -R " + uid + " " + dir + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private volatile boolean keep;

    /** Keeps the server's directory (data, logs) when it is closed: evidence of a failed run. */
    void keep() {
        keep = true;
    }

    /** @return the user id the server runs as, or -1 for root */
    int uid() {
        return uid;
    }

    /** Copies the template, without what must differ per server (its UUID, binary logs). */
    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path rel = from.relativize(p);
                String name = p.getFileName().toString();
                if (name.equals("auto.cnf") || name.startsWith("binlog.") || name.endsWith(".pid")) {
                    continue;
                }
                Path target = to.resolve(rel.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    /** @return the mysqld command line */
    private List<String> command() {
        List<String> c = new ArrayList<>(List.of(SidChroot.MYSQLD, "--no-defaults", "--user=root",
                "--datadir=" + home.resolve("data"), "--tmpdir=" + home.resolve("tmp"),
                "--socket=" + home.resolve("mysqld.sock"), "--pid-file=" + home.resolve("mysqld.pid"),
                "--log-error=" + errorLog(), "--port=" + port, "--bind-address=127.0.0.1", "--mysqlx=OFF",
                "--secure-file-priv=", "--max-connections=400",
                "--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0",
                "--innodb-buffer-pool-size=128M", "--performance-schema=OFF"));
        c.addAll(settings);
        return c;
    }

    /** Starts mysqld (again, after {@link #kill()}) and waits until it accepts connections. */
    void launch() {
        long t0 = System.nanoTime();
        ProcessBuilder pb = new ProcessBuilder(SidChroot.inChroot(rootfs, command(), uid)).redirectErrorStream(true)
                .redirectOutput(home.resolve("stdout.log").toFile());
        pb.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        try {
            process = LAUNCHER.submit(pb::start).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot start mysqld: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        awaitReady();
        startMillis = (System.nanoTime() - t0) / 1_000_000;
        version = query("SELECT VERSION()");
    }

    private void awaitReady() {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        String last = "not answering";
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mysqld exited (" + process.exitValue() + "): " + tail(25));
            }
            try (Connection c = DriverManager.getConnection(url(""), "root", "")) {
                return;
            } catch (SQLException e) {
                last = e.getMessage();
            }
            sleep(200);
        }
        kill();
        throw new IllegalStateException("mysqld did not accept connections within " + START_MILLIS / 1000 + " s ("
                + last + "): " + tail(25));
    }

    /**
     * @param sql a query of one value
     * @return the value as text
     */
    String query(String sql) {
        try (Connection c = DriverManager.getConnection(url(""), "root", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException("mysqld on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param statements statements run in order on one connection
     */
    void execute(String... statements) {
        try (Connection c = DriverManager.getConnection(url(""), "root", "");
             Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("mysqld on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param database a database, or "" for none
     * @return a MySQL Connector/J URL
     */
    String url(String database) {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + database + "?allowPublicKeyRetrieval=true&useSSL=false";
    }

    /**
     * @param database a database, or "" for none
     * @return a MariaDB Connector/J URL
     */
    String mariaDbUrl(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    /** @return the version the server states, e.g. "9.7.4-2" */
    String version() {
        return version;
    }

    /** @return how long the last start took to the first connection */
    long startMillis() {
        return startMillis;
    }

    /** @return the SQL port */
    int port() {
        return port;
    }

    /** @return the process id of the running server, or -1 */
    long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    /** @return the server's error log */
    Path errorLog() {
        return home.resolve("error.log");
    }

    /**
     * @param n lines
     * @return the error log's last lines
     */
    String tail(int n) {
        try {
            if (!Files.exists(errorLog())) {
                return "(no error log; stdout: " + Files.readString(home.resolve("stdout.log")).strip() + ")";
            }
            List<String> lines = Files.readAllLines(errorLog(), StandardCharsets.ISO_8859_1);
            return "error log " + errorLog() + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(error log unreadable: " + e.getMessage() + ")";
        }
    }

    /** SIGKILLs the server and waits for it to be gone. */
    void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the server (SIGTERM, then SIGKILL after 30 s) and deletes its directory. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: the hook runs
        }
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroy();
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        keepCrashLog();
        if (keep) {
            Path kept = home.resolveSibling(home.getFileName() + "-kept"); // not an orphan for deleteOrphans
            try {
                Files.move(home, kept);
                System.out.println("mysqld on port " + port + ": its directory is kept in " + kept);
            } catch (IOException e) {
                System.out.println("mysqld on port " + port + ": its directory is kept in " + home + " (" + e + ")");
            }
            return;
        }
        try {
            SidChroot.delete(home);
        } catch (IOException e) {
            // best effort: a directory in /dev/shm
        }
    }

    /**
     * Keeps the error log of a server that crashed ("mysqld got signal") as {@code target/mysqld-crash-<port>-<ms>.log}
     * of the module, before its directory in {@code /dev/shm} is deleted, and says so on stderr: the crash report
     * (signal, stack, query) is the only evidence of a server bug.
     */
    private void keepCrashLog() {
        try {
            if (!Files.exists(errorLog())) {
                return;
            }
            String log = Files.readString(errorLog(), StandardCharsets.ISO_8859_1);
            if (!log.contains("mysqld got signal")) {
                return;
            }
            Path kept = Path.of("target", "mysqld-crash-" + port + "-" + System.currentTimeMillis() + ".log");
            Files.createDirectories(kept.getParent());
            Files.writeString(kept, log, StandardCharsets.ISO_8859_1);
            System.err.println("mysqld on port " + port + " crashed; its error log is kept in "
                    + kept.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
            System.err.println("mysqld on port " + port + ": could not keep its error log: " + e.getMessage());
        }
    }

    static int[] freePorts(int count) {
        List<ServerSocket> open = new ArrayList<>();
        int[] ports = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                open.add(s);
                ports[i] = s.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // a probe socket
                }
            }
        }
        return ports;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return "MySQL " + version + " on 127.0.0.1:" + port;
    }
}
