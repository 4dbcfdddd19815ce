package dev.rowqueue.internal;

import dev.rowqueue.NodeInfo;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.Sql;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * This instance as a node of the database ({@link NodeInfo}): its id, chosen at random, goes into the high bits of
 * every lease token it makes ({@link #token()}, no statement); the first worker or scheduler it starts starts a daemon
 * thread that registers the node in {@code rowqueue_nodes} and beats every {@link NodeInfo#HEARTBEAT} (one UPDATE; an
 * INSERT when the row is missing), deleting expired rows every sixth beat. Close deletes the row. Off
 * ({@code register} false), the tokens still carry the id and nothing is written.
 */
final class NodeRegistry {
    private static final Logger log = LoggerFactory.getLogger(NodeRegistry.class);
    private static final int RANDOM_BITS = Long.SIZE - NodeInfo.ID_BITS;
    private static final long RANDOM_MASK = (1L << RANDOM_BITS) - 1;
    private static final String T = Schema.NODES_TABLE;
    private static final int EXPIRE_EVERY = 6;

    private final Dialect dialect;
    private final Executor executor;
    private final Runnable ensureTable;
    private final Supplier<Map<String, Integer>> workers;
    private final boolean register;
    private final String name;
    private final long pid = ProcessHandle.current().pid();
    private final long startedMs = System.currentTimeMillis();
    private final boolean nowIsParameter;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean warned = new AtomicBoolean();
    private final long id = newId();
    private volatile boolean scheduler;
    private volatile boolean closed;
    private volatile boolean registered;
    private volatile String host;
    private volatile ScheduledExecutorService timer;
    private int beats;

    /**
     * @param dialect     the dialect
     * @param executor    a pooled executor
     * @param ensureTable makes sure the table exists (the catalog's check)
     * @param workers     the threads of this instance's running workers per queue
     * @param name        the node's name, or {@code null} for the main class
     * @param register    whether to register and beat
     */
    NodeRegistry(Dialect dialect, Executor executor, Runnable ensureTable, Supplier<Map<String, Integer>> workers,
                 String name, boolean register) {
        this.dialect = dialect;
        this.register = register;
        this.executor = executor;
        this.ensureTable = ensureTable;
        this.workers = workers;
        this.name = label(name != null ? name : mainClass(), 128);
        this.nowIsParameter = dialect.nowMillis().strip().equals(":now");
    }

    private static long newId() {
        return ThreadLocalRandom.current().nextLong(1, 1L << NodeInfo.ID_BITS);
    }

    /** @return this node's id */
    long id() {
        return id;
    }

    /** @return a new lease token: this node's id in the high bits, random below; never 0 */
    long token() {
        return (id << RANDOM_BITS) | (ThreadLocalRandom.current().nextLong() & RANDOM_MASK);
    }

    /** Starts the heartbeat if it is not running: no statement here. */
    void touch() {
        if (register && !closed && started.compareAndSet(false, true)) {
            ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "rowqueue-node");
                thread.setDaemon(true);
                return thread;
            });
            t.scheduleWithFixedDelay(this::tick, 0, NodeInfo.HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
            timer = t;
        }
    }

    /** This instance started its scheduler: beats now, so that tools see it at once. */
    void schedulerStarted() {
        scheduler = true;
        touch();
        beatSoon();
    }

    /** A worker started or stopped: the next beat says so, now. */
    void workersChanged() {
        touch();
        beatSoon();
    }

    private void beatSoon() {
        ScheduledExecutorService t = timer;
        if (t != null && !closed) {
            try {
                t.execute(this::tick);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    private void tick() {
        try {
            beat();
        } catch (RuntimeException e) {
            if (closed) { // a beat cut short by close: nothing to tell
                log.debug("rowqueue: node heartbeat ended by close: {}", e.getMessage());
            } else if (warned.compareAndSet(false, true)) {
                log.warn("rowqueue: cannot register this process in {} ({}); consoles will not name the holders of its"
                        + " leases nor see its scheduler. If the table is missing, run RowQueues.schema().catalog()'s"
                        + " statements for it (logged once, at DEBUG after)", T, e.getMessage());
            } else {
                log.debug("rowqueue: node heartbeat failed: {}", e.getMessage());
            }
        }
    }

    /** One beat: UPDATE, or INSERT when the row is missing; every sixth, the expired rows are deleted. */
    synchronized void beat() {
        if (closed) {
            return;
        }
        if (host == null) {
            host = label(hostName(), 255);
            ensureTable.run();
        }
        String runs = label(runs(), 400);
        int sched = scheduler ? 1 : 0;
        boolean expire = beats++ % EXPIRE_EVERY == 0;
        String now = dialect.nowMillis();
        Sql update = Sql.of("UPDATE " + T + " SET seen_ms = " + now + ", scheduler = :sched, runs = :runs"
                + " WHERE node_id = :id");
        Sql insert = Sql.of("INSERT INTO " + T + " (node_id, node_name, host, pid, started_ms, seen_ms, scheduler, runs)"
                + " VALUES (:id, :name, :host, :pid, :started, " + now + ", :sched, :runs)");
        Sql cleanup = Sql.of("DELETE FROM " + T + " WHERE seen_ms + :expiry < " + now);
        executor.run("register this node in " + T, SqlOp.transaction(c -> {
            int updated;
            try (PreparedStatement ps = update.prepare(c)) {
                dialect.bind(update, ps).set("sched", sched).set("runs", runs).set("id", id).done();
                updated = ps.executeUpdate();
            }
            if (updated == 0) {
                try (PreparedStatement ps = insert.prepare(c)) {
                    dialect.bind(insert, ps).set("id", id).set("name", name).set("host", host).set("pid", pid)
                            .set("started", startedMs).set("sched", sched).set("runs", runs).done();
                    ps.executeUpdate();
                }
            }
            if (expire) {
                try (PreparedStatement ps = cleanup.prepare(c)) {
                    dialect.bind(cleanup, ps).set("expiry", NodeInfo.EXPIRES_AFTER.toMillis()).done();
                    ps.executeUpdate();
                }
            }
            return null;
        }));
        registered = true;
    }

    /**
     * @return every node row not yet deleted, with how long each has been silent (by the database's clock where the
     *         dialect reads it, else this JVM's)
     */
    List<NodeInfo> read(Executor executor) {
        Sql sql = Sql.of("SELECT node_id, node_name, host, pid, started_ms, seen_ms, scheduler, runs"
                + (nowIsParameter ? "" : ", " + dialect.nowMillis()) + " FROM " + T);
        return executor.run("read the nodes", SqlOp.read(c -> {
            List<NodeInfo> nodes = new ArrayList<>();
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).done();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long seen = rs.getLong(6);
                        long now = nowIsParameter ? dialect.clock().millis() : rs.getLong(9);
                        nodes.add(new NodeInfo(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                                Instant.ofEpochMilli(rs.getLong(5)), Instant.ofEpochMilli(seen),
                                Duration.ofMillis(Math.max(0, now - seen)), rs.getInt(7) != 0, rs.getString(8)));
                    }
                }
            }
            nodes.sort(java.util.Comparator.comparing(NodeInfo::name).thenComparing(NodeInfo::host)
                    .thenComparingLong(NodeInfo::pid));
            return List.copyOf(nodes);
        }));
    }

    private String runs() {
        List<String> parts = new ArrayList<>();
        Map<String, Integer> w = new TreeMap<>(workers.get());
        if (!w.isEmpty()) {
            List<String> each = new ArrayList<>();
            w.forEach((queue, threads) -> each.add(queue + " (" + threads + (threads == 1 ? " thread)" : " threads)")));
            parts.add("workers: " + String.join(", ", each));
        }
        if (scheduler) {
            parts.add("scheduler");
        }
        return parts.isEmpty() ? "claims only" : String.join("; ", parts);
    }

    /** Stops the heartbeat and deletes this node's row, waiting at most a few seconds. */
    void close() {
        closed = true;
        ScheduledExecutorService t = timer;
        if (t == null) {
            return;
        }
        t.shutdownNow();
        if (!registered) {
            return;
        }
        Sql delete = Sql.of("DELETE FROM " + T + " WHERE node_id = :id");
        Thread last = new Thread(() -> {
            try {
                synchronized (NodeRegistry.this) { // after a beat in progress, never before it
                    executor.run("remove this node from " + T, SqlOp.transaction(c -> {
                        try (PreparedStatement ps = delete.prepare(c)) {
                            dialect.bind(delete, ps).set("id", id).done();
                            return ps.executeUpdate();
                        }
                    }));
                }
            } catch (RuntimeException e) {
                log.debug("rowqueue: removing this node's row failed (it expires): {}", e.getMessage());
            }
        }, "rowqueue-node-close");
        last.setDaemon(true);
        last.start();
        try {
            last.join(ActivityRecorder.CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | RuntimeException e) {
            String env = System.getenv("HOSTNAME");
            return env != null && !env.isBlank() ? env : "unknown host";
        }
    }

    private static String mainClass() {
        String command = System.getProperty("sun.java.command", "");
        String first = command.isBlank() ? "java" : command.strip().split("\\s+")[0];
        int slash = Math.max(first.lastIndexOf('/'), first.lastIndexOf('\\'));
        return first.substring(slash + 1);
    }

    /** @return printable ASCII of at most {@code max} characters: the columns are labels */
    static String label(String s, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char ch = s.charAt(i);
            b.append(ch >= 0x20 && ch < 0x7f ? ch : '?');
        }
        return b.isEmpty() ? "?" : b.toString();
    }
}
