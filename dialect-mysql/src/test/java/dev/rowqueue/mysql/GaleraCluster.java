package dev.rowqueue.mysql;

import dev.rowqueue.testkit.MachineLock;
import org.junit.jupiter.api.Assumptions;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A three-node MariaDB Galera cluster on loopback for tests: each node has its own {@code --defaults-file}, data and
 * tmp directories under one temp directory, its own loopback address (127.0.0.11, .12, .13, or the next three of
 * the {@value #SLOTS} sets a {@link MachineLock} hands out, so that parallel forks and builds never share one: Galera
 * binds its outgoing connections to it too, so a {@code LoopbackFirewall} can cut one node off from the others while
 * clients still reach it) and its own SQL, gcomm, IST and SST ports. Node 1 is initialised with
 * {@code mariadb-install-db} and bootstraps the cluster ({@code --wsrep-new-cluster}); nodes 2 and 3 join one after
 * the other and get their state from node 1 by rsync SST. {@link #start} returns once every node reports
 * {@code wsrep_local_state_comment = Synced} and {@code wsrep_cluster_size = 3}.
 *
 * <p>{@code mariadbd} runs as the {@code mysql} user (through {@code setpriv}, which execs, so the process handle is
 * the server's): the rsync SST daemon drops to {@code nobody} when the server runs as root and then cannot write the
 * joiner's data directory. The temp directory is given to {@code mysql}. Root may connect over TCP from 127.0.0.1
 * without a password. Closing stops every node and deletes the directory. Without {@code galera-4} or
 * {@code mariadbd} on the machine, {@link #start} fails a JUnit assumption: the caller is reported NOT RUN.
 */
final class GaleraCluster implements AutoCloseable {

    /** The Galera 4 provider of Debian's {@code galera-4} package. */
    static final Path PROVIDER = Path.of("/usr/lib/galera/libgalera_smm.so");
    private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final String USER = "mysql";
    /** How long one node may take to become Synced. */
    private static final long NODE_START_MILLIS = 120_000;

    /** How many clusters this machine may run at once, each on its own three addresses. */
    static final int SLOTS = 3;

    private final Path dir;
    private final MachineLock addresses;
    private final List<Node> nodes = new ArrayList<>();
    private volatile boolean keep;
    private final String installDb;

    /** Kills the servers if the JVM exits without closing the cluster (they are not its children's children). */
    private final Thread hook = new Thread(this::killAll, "galera-cluster-kill");

    private GaleraCluster(Path dir, String installDb, MachineLock addresses) {
        this.dir = dir;
        this.addresses = addresses;
        this.installDb = installDb;
    }

    /** One node: ports, files, process. */
    static final class Node {
        final int index;
        final int sqlPort;
        final int gcommPort;
        final int istPort;
        final int sstPort;
        final Path home;
        /** The node's own loopback address, so that a test can cut it off from the others. */
        final String host;
        Process process;

        Node(int index, int slot, int sqlPort, int gcommPort, int istPort, int sstPort, Path home) {
            this.index = index;
            this.host = "127.0.0." + (10 + 3 * slot + index);
            this.sqlPort = sqlPort;
            this.gcommPort = gcommPort;
            this.istPort = istPort;
            this.sstPort = sstPort;
            this.home = home;
        }

        Path config() {
            return home.resolve("my.cnf");
        }

        Path errorLog() {
            return home.resolve("error.log");
        }

        /** @return the process id of the running server, or -1 */
        long pid() {
            Process p = process;
            return p != null && p.isAlive() ? p.pid() : -1;
        }
    }

    /**
     * @return why a cluster cannot run on this machine, or {@code null} if it can
     */
    static String missing() {
        if (!Files.exists(PROVIDER)) {
            return "galera-4 is not installed (no " + PROVIDER + ")";
        }
        if (!Files.isExecutable(MARIADBD)) {
            return "mariadbd is not installed (no " + MARIADBD + ")";
        }
        if (!Files.isExecutable(SETPRIV)) {
            return "setpriv is missing (util-linux)";
        }
        if (installDbCommand() == null) {
            return "mariadb-install-db is missing";
        }
        if (!Files.isExecutable(Path.of("/usr/bin/rsync"))) {
            return "rsync is not installed (the state transfer needs it)";
        }
        try {
            Process p = new ProcessBuilder("id", "-u", USER).redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "there is no '" + USER + "' user to run mariadbd as";
            }
        } catch (IOException e) {
            return "cannot look up the '" + USER + "' user: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return null;
    }

    private static String installDbCommand() {
        for (String c : List.of("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db",
                "/usr/local/bin/mariadb-install-db")) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    /**
     * Starts a fresh three-node cluster, or fails a JUnit assumption when the machine has no Galera.
     *
     * @return the running cluster, every node Synced
     */
    static GaleraCluster start() {
        String missing = missing();
        Assumptions.assumeTrue(missing == null, () -> "no MariaDB Galera cluster can run here: " + missing);
        MachineLock addresses = MachineLock.slot("galera-addresses", SLOTS, Duration.ofMinutes(30));
        try {
            Path dir = Files.createTempDirectory("rowqueue-galera-");
            GaleraCluster cluster = new GaleraCluster(dir, installDbCommand(), addresses);
            Runtime.getRuntime().addShutdownHook(cluster.hook);
            try {
                cluster.boot();
                return cluster;
            } catch (RuntimeException | Error e) {
                cluster.close();
                throw e;
            }
        } catch (IOException e) {
            addresses.close();
            throw new UncheckedIOException(e);
        }
    }

    private void boot() {
        long t0 = System.nanoTime();
        int[] ports = freePorts(12);
        for (int i = 0; i < 3; i++) {
            Path home = dir.resolve("node" + (i + 1));
            nodes.add(new Node(i + 1, addresses.slot(), ports[4 * i], ports[4 * i + 1], ports[4 * i + 2], ports[4 * i + 3], home));
        }
        try {
            for (Node n : nodes) {
                Files.createDirectories(n.home.resolve("data"));
                Files.createDirectories(n.home.resolve("tmp"));
                Files.writeString(n.config(), config(n));
            }
            run(List.of("chown", "-R", USER + ":" + USER, dir.toString()), 30);
            run(asMysql(installDb, "--no-defaults", "--datadir=" + nodes.get(0).home.resolve("data"),
                    "--auth-root-authentication-method=normal", "--skip-test-db"), 120);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Node first = nodes.get(0);
        launch(first, true);
        grantRootOverTcp(first);
        awaitSynced(first, 1);
        for (int i = 1; i < 3; i++) {
            launch(nodes.get(i), false);
            awaitSynced(nodes.get(i), i + 1);
        }
        for (Node n : nodes) {
            awaitSynced(n, 3);
        }
        startMillis = (System.nanoTime() - t0) / 1_000_000;
        version = query(first, "SELECT VERSION()").replace("-MariaDB", "").replaceAll("-.*", "");
        providerVersion = query(first, "SHOW STATUS LIKE 'wsrep_provider_version'", 2);
    }

    private String version;
    private String providerVersion;

    /** @return the servers' version, e.g. "10.11.19" */
    String version() {
        return version;
    }

    /** @return the Galera provider's version, e.g. "26.4.23(r...)" */
    String providerVersion() {
        return providerVersion;
    }

    private String query(Node n, String sql) {
        return query(n, sql, 1);
    }

    private String query(Node n, String sql, int column) {
        try (Connection c = DriverManager.getConnection(url(n, ""), "root", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(column);
        } catch (SQLException e) {
            throw new IllegalStateException("node " + n.index + ": " + e.getMessage(), e);
        }
    }

    private long startMillis;

    /** @return how long {@link #start} took to three Synced nodes */
    long startMillis() {
        return startMillis;
    }

    private String config(Node n) {
        StringBuilder addresses = new StringBuilder();
        for (Node o : nodes) {
            addresses.append(addresses.length() == 0 ? "" : ",").append(o.host).append(':').append(o.gcommPort);
        }
        return String.join("\n",
                "[mysqld]",
                "user=" + USER,
                "datadir=" + n.home.resolve("data"),
                "tmpdir=" + n.home.resolve("tmp"),
                "socket=" + n.home.resolve("mysqld.sock"),
                "pid-file=" + n.home.resolve("mysqld.pid"),
                "log-error=" + n.errorLog(),
                "port=" + n.sqlPort,
                "bind-address=" + n.host,
                "skip-name-resolve",
                "character-set-server=utf8mb4",
                "max_connections=400",
                "performance_schema=OFF",
                "innodb_buffer_pool_size=64M",
                "innodb_log_file_size=48M",
                "innodb_flush_log_at_trx_commit=2",
                "default_storage_engine=InnoDB",
                "binlog_format=ROW",
                "innodb_autoinc_lock_mode=2",
                "wsrep_on=ON",
                "wsrep_provider=" + PROVIDER,
                "wsrep_cluster_name=rowqueue_test",
                "wsrep_cluster_address=gcomm://" + addresses,
                "wsrep_node_name=node" + n.index,
                "wsrep_node_address=" + n.host + ":" + n.gcommPort,
                "wsrep_sst_method=rsync",
                "wsrep_sst_receive_address=" + n.host + ":" + n.sstPort,
                "wsrep_provider_options=\"gmcast.listen_addr=tcp://" + n.host + ":" + n.gcommPort
                        + ";ist.recv_addr=" + n.host + ":" + n.istPort + ";gcache.size=32M;gcache.page_size=32M\"",
                "wsrep_slave_threads=2",
                "server_id=" + n.index,
                "log_bin=" + n.home.resolve("binlog"),
                "log_slave_updates=ON",
                "") + "\n";
    }

    private List<String> asMysql(String... command) {
        List<String> c = new ArrayList<>(List.of(SETPRIV.toString(), "--reuid=" + USER, "--regid=" + USER,
                "--init-groups", "--"));
        c.addAll(List.of(command));
        return c;
    }

    private void launch(Node n, boolean bootstrap) {
        List<String> command = new ArrayList<>(asMysql(MARIADBD.toString(), "--defaults-file=" + n.config()));
        if (bootstrap) {
            command.add("--wsrep-new-cluster");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(n.home.resolve("stdout.log").toFile());
        pb.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        try {
            n.process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + n.index, e);
        }
    }

    /**
     * Lets root in over TCP from 127.0.0.1 without a password (the install made only root@localhost, which a
     * connection to 127.0.0.1 does not match under {@code skip-name-resolve}), through the node's socket. The grant
     * replicates: the joiners get it by state transfer.
     */
    private void grantRootOverTcp(Node n) {
        Path socket = n.home.resolve("mysqld.sock");
        long deadline = System.currentTimeMillis() + NODE_START_MILLIS;
        while (!Files.exists(socket)) {
            if (!n.process.isAlive() || System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("node " + n.index + " did not open its socket: " + tail(n));
            }
            sleep(100);
        }
        while (true) {
            try {
                run(List.of("mariadb", "--no-defaults", "--socket=" + socket, "-uroot", "-e",
                        "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';"
                                + " GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"), 60);
                return;
            } catch (IllegalStateException e) {
                if (!n.process.isAlive() || System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(e.getMessage() + "; " + tail(n), e);
                }
                sleep(200);
            }
        }
    }

    private void awaitSynced(Node n, int size) {
        long deadline = System.currentTimeMillis() + NODE_START_MILLIS;
        String last = "not answering";
        while (System.currentTimeMillis() < deadline) {
            if (n.process == null || !n.process.isAlive()) {
                throw new IllegalStateException("node " + n.index + " exited: " + tail(n));
            }
            try (Connection c = DriverManager.getConnection(url(n, ""), "root", "");
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SHOW STATUS WHERE Variable_name IN"
                         + " ('wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_ready')")) {
                Map<String, String> status = new HashMap<>();
                while (rs.next()) {
                    status.put(rs.getString(1), rs.getString(2));
                }
                last = status.toString();
                if ("Synced".equals(status.get("wsrep_local_state_comment")) && "ON".equals(status.get("wsrep_ready"))
                        && String.valueOf(size).equals(status.get("wsrep_cluster_size"))) {
                    return;
                }
            } catch (SQLException e) {
                last = e.getMessage();
            }
            sleep(200);
        }
        throw new IllegalStateException("node " + n.index + " did not become Synced in a cluster of " + size + ": "
                + last + "; " + tail(n));
    }

    /**
     * Waits until a node is Synced in a cluster of three again (after a restart, or after it was cut off).
     *
     * @param n the node (0-based)
     */
    void awaitSynced(int n) {
        awaitSynced(nodes.get(n), 3);
    }

    /**
     * @param n        a node (0-based)
     * @param database a database name, or "" for none
     * @return the MariaDB Connector/J URL of the node
     */
    String url(int n, String database) {
        return url(nodes.get(n), database);
    }

    private static String url(Node n, String database) {
        return "jdbc:mariadb://" + n.host + ":" + n.sqlPort + "/" + database;
    }

    /** @return the nodes' URLs of one database, node 1 first */
    List<String> urls(String database) {
        return nodes.stream().map(n -> url(n, database)).toList();
    }

    /** @return the nodes */
    List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * Creates a database on node 1 and waits until every node has it.
     *
     * @param name the database
     */
    void createDatabase(String name) {
        sql(nodes.get(0), "CREATE DATABASE IF NOT EXISTS " + name + " CHARACTER SET utf8mb4");
        for (Node n : nodes) {
            long deadline = System.currentTimeMillis() + 30_000;
            while (true) {
                try (Connection c = DriverManager.getConnection(url(n, name), "root", "")) {
                    break;
                } catch (SQLException e) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("database " + name + " did not reach node " + n.index, e);
                    }
                    sleep(100);
                }
            }
        }
    }

    /**
     * SIGKILLs one node's server.
     *
     * @param n the node (0-based)
     */
    void kill(int n) {
        Node node = nodes.get(n);
        if (node.process != null) {
            node.process.destroyForcibly();
            try {
                node.process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Restarts a killed node (not node 1's bootstrap: it joins the running cluster) and waits until it is Synced.
     *
     * @param n the node (0-based)
     */
    void restart(int n) {
        Node node = nodes.get(n);
        launch(node, false);
        awaitSynced(node, 3);
    }

    /** Keeps the directories (data, logs) when the cluster is closed: they are evidence of a failed run. */
    void keep() {
        keep = true;
    }

    /**
     * @param n a node (0-based)
     * @return the node's own loopback address
     */
    String host(int n) {
        return nodes.get(n).host;
    }

    /**
     * @param n a node (0-based)
     * @return the process id of its server, or -1 if it is not running
     */
    long pid(int n) {
        return nodes.get(n).pid();
    }

    /** SIGKILLs every node. */
    void killAll() {
        for (int i = 0; i < nodes.size(); i++) {
            kill(i);
        }
    }

    /**
     * Restarts a cluster whose nodes were all killed, as an operator must: asks each node for the last write set it
     * committed ({@code mariadbd --wsrep-recover}), bootstraps the most advanced one ({@code safe_to_bootstrap: 1},
     * {@code --wsrep-new-cluster}) and lets the others join it.
     *
     * @return the node (0-based) the cluster was bootstrapped from
     */
    int bootstrapFromMostAdvanced() {
        int best = -1;
        long bestSeqno = Long.MIN_VALUE;
        for (Node n : nodes) {
            long seqno = recoveredSeqno(n);
            if (seqno > bestSeqno) {
                bestSeqno = seqno;
                best = n.index - 1;
            }
        }
        Node first = nodes.get(best);
        try {
            Path state = first.home.resolve("data").resolve("grastate.dat");
            Files.writeString(state, Files.readString(state).replaceAll("safe_to_bootstrap:\\s*0",
                    "safe_to_bootstrap: 1"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        launch(first, true);
        awaitSynced(first, 1);
        int size = 1;
        for (Node n : nodes) {
            if (n != first) {
                launch(n, false);
                awaitSynced(n, ++size);
            }
        }
        for (Node n : nodes) {
            awaitSynced(n, 3);
        }
        return best;
    }

    /** @return the seqno {@code mariadbd --wsrep-recover} finds in a stopped node's data directory */
    private long recoveredSeqno(Node n) {
        String marker = "WSREP: Recovered position: ";
        run(asMysql(MARIADBD.toString(), "--defaults-file=" + n.config(), "--wsrep-recover"), 120);
        try {
            List<String> lines = Files.readAllLines(n.errorLog(), StandardCharsets.ISO_8859_1);
            for (int i = lines.size() - 1; i >= 0; i--) {
                int at = lines.get(i).indexOf(marker);
                if (at >= 0) {
                    String position = lines.get(i).substring(at + marker.length()).strip();
                    return Long.parseLong(position.substring(position.lastIndexOf(':') + 1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("node " + n.index + ": --wsrep-recover found no position; " + tail(n));
    }

    /**
     * Kills the client sessions that use a database on every running node ({@code KILL CONNECTION}), as a network
     * fault or an operator would, mid-transaction or not.
     *
     * @param database the database whose sessions die
     * @return how many were killed
     */
    int killClientConnections(String database) {
        int killed = 0;
        for (Node n : nodes) {
            if (n.pid() >= 0) {
                killed += ClientSessions.kill(url(n, ""), database);
            }
        }
        return killed;
    }

    private void sql(Node n, String... statements) {
        try (Connection c = DriverManager.getConnection(url(n, ""), "root", "");
             Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("node " + n.index + ": " + e.getMessage(), e);
        }
    }

    private static String tail(Node n) {
        try {
            if (!Files.exists(n.errorLog())) {
                return "(no error log)";
            }
            List<String> lines = Files.readAllLines(n.errorLog(), StandardCharsets.ISO_8859_1);
            return "error log of node " + n.index + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size()));
        } catch (IOException e) {
            return "(error log unreadable: " + e.getMessage() + ")";
        }
    }


    /** Stops every node (SIGTERM, then SIGKILL after 20 s) and deletes the directory. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already exiting: the hook runs
        }
        List<Node> reversed = new ArrayList<>(nodes);
        java.util.Collections.reverse(reversed);
        for (Node n : reversed) {
            if (n.process != null && n.process.isAlive()) {
                n.process.destroy();
            }
        }
        for (Node n : reversed) {
            if (n.process == null) {
                continue;
            }
            try {
                if (!n.process.waitFor(20, TimeUnit.SECONDS)) {
                    n.process.destroyForcibly();
                    n.process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                n.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        addresses.close(); // the nodes are gone: their addresses are free
        if (keep) {
            System.out.println("Galera cluster's directories kept in " + dir);
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }

    private static void run(List<String> command, int seconds) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static int[] freePorts(int count) {
        List<ServerSocket> open = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        int[] ports = new int[count];
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                open.add(s);
                if (!seen.add(s.getLocalPort())) {
                    i--;
                    continue;
                }
                ports[i] = s.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a probe socket
                }
            }
        }
        return ports;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
