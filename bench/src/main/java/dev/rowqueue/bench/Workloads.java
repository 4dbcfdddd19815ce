package dev.rowqueue.bench;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/** The operations measured: rowqueue's and the baselines', each an {@link Harness.Operation}. */
final class Workloads {

    private final DataSource ds;
    private final RowQueues rq;
    private final String varchar;
    private final AtomicLong names = new AtomicLong();
    private final AtomicLong naiveIds = new AtomicLong();

    Workloads(BenchTarget target, RowQueues rq) {
        this.ds = target.dataSource();
        this.rq = rq;
        this.varchar = target.varchar();
    }

    String fresh(String prefix) {
        return prefix + names.incrementAndGet() + "_" + Long.toString(System.nanoTime() % 100_000, 36);
    }

    void sql(String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    static String group(int groups, int thread, long n, int threads, boolean owned) {
        if (groups == 1) {
            return "g";
        }
        if (owned) { // single writer per group: thread t only touches groups g with g % threads == t
            int perThread = groups / threads;
            return "g" + (thread + threads * ThreadLocalRandom.current().nextInt(Math.max(1, perThread)));
        }
        return "g" + ThreadLocalRandom.current().nextInt(groups);
    }

    // ------------------------------------------------------------------ baselines

    /** The limit: one single-row INSERT in its own transaction (auto-commit), same pool, same threads. */
    Harness.Operation bareInsert() throws SQLException {
        String t = fresh("b_ins");
        sql("CREATE TABLE " + t + " (k " + varchar + " NOT NULL, n BIGINT NOT NULL, payload " + varchar
                + " NOT NULL, PRIMARY KEY (k, n))");
        AtomicLong rowIds = new AtomicLong();
        return (thread, n) -> {
            try (Connection c = ds.getConnection();
                 PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (k, n, payload) VALUES (?, ?, ?)")) {
                ps.setString(1, "t" + thread);
                ps.setLong(2, rowIds.incrementAndGet());
                ps.setString(3, "payload-" + n);
                return ps.executeUpdate();
            }
        };
    }

    /** The limit for updates: one single-row UPDATE in its own transaction, each thread on its own row. */
    Harness.Operation bareUpdate(int rows) throws SQLException {
        String t = fresh("b_upd");
        sql("CREATE TABLE " + t + " (k " + varchar + " NOT NULL, v BIGINT NOT NULL, PRIMARY KEY (k))");
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (k, v) VALUES (?, 0)")) {
            for (int i = 0; i < rows; i++) {
                ps.setString(1, "k" + i);
                ps.executeUpdate();
            }
        }
        return (thread, n) -> {
            try (Connection c = ds.getConnection();
                 PreparedStatement ps = c.prepareStatement("UPDATE " + t + " SET v = v + 1 WHERE k = ?")) {
                ps.setString(1, "k" + (rows == 1 ? 0 : ThreadLocalRandom.current().nextInt(rows)));
                return ps.executeUpdate();
            }
        };
    }

    /** The naive ring the seeds argue against: insert, count, delete the oldest beyond the cap, one transaction. */
    Harness.Operation naiveRing(int groups, int capacity, int threads) throws SQLException {
        String t = fresh("b_naive");
        sql("CREATE TABLE " + t + " (grp " + varchar + " NOT NULL, id BIGINT NOT NULL, payload " + varchar
                + " NOT NULL, PRIMARY KEY (grp, id))");
        return (thread, n) -> {
            String g = group(groups, thread, n, threads, false);
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (grp, id, payload) VALUES (?, ?, ?)")) {
                        ps.setString(1, g);
                        ps.setLong(2, naiveIds.incrementAndGet());
                        ps.setString(3, "payload-" + n);
                        ps.executeUpdate();
                    }
                    long count;
                    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + t + " WHERE grp = ?")) {
                        ps.setString(1, g);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            count = rs.getLong(1);
                        }
                    }
                    if (count > capacity) {
                        long oldestKept = Long.MIN_VALUE;
                        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM " + t + " WHERE grp = ? ORDER BY id")) {
                            ps.setString(1, g);
                            ps.setMaxRows((int) (count - capacity));
                            try (ResultSet rs = ps.executeQuery()) {
                                while (rs.next()) {
                                    oldestKept = rs.getLong(1);
                                }
                            }
                        }
                        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t + " WHERE grp = ? AND id <= ?")) {
                            ps.setString(1, g);
                            ps.setLong(2, oldestKept);
                            ps.executeUpdate();
                        }
                    }
                    c.commit();
                    return 1;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
        };
    }

    // ------------------------------------------------------------------ rowqueue

    Harness.Operation ringPush(int groups, int capacity, RingStrategy strategy, int threads) {
        RingQueue ring = rq.ring(fresh("r"), RingOptions.capacity(capacity).strategy(strategy));
        boolean owned = strategy == RingStrategy.SINGLE_WRITER;
        return (thread, n) -> {
            ring.push(group(groups, thread, n, threads, owned), "payload-" + n);
            return 1;
        };
    }

    Harness.Operation enqueue() {
        WorkQueue q = rq.workQueue(fresh("w"));
        return (thread, n) -> {
            q.enqueue("payload-" + n);
            return 1;
        };
    }

    /** A queue with jobs to claim: its backlog is topped up outside the timed operation. */
    final class Backlog {
        final WorkQueue queue;
        private final AtomicLong enqueued = new AtomicLong();

        Backlog(WorkQueueOptions options) {
            this.queue = rq.workQueue(fresh("w"), options);
        }

        void fill(long jobs) {
            List<String> chunk = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                chunk.add("job");
            }
            for (long done = 0; done < jobs; done += chunk.size()) {
                queue.enqueueAll(chunk, Enqueue.defaults());
            }
            enqueued.addAndGet(jobs);
        }

        /** Makes {@code dead} jobs dead (claimed, nacked past their single attempt): rows claims must skip. */
        void kill(int dead) {
            WorkQueue oneShot = rq.workQueue(queue.name(), WorkQueueOptions.defaults().maxAttempts(1));
            fill(dead);
            for (int done = 0; done < dead; ) {
                List<Job> jobs = oneShot.claim(500);
                for (Job j : jobs) {
                    oneShot.nack(j, Duration.ZERO);
                }
                done += jobs.size();
                if (jobs.isEmpty()) {
                    break;
                }
            }
        }

        /** Claims a batch and acks it; returns how many jobs were processed. */
        Harness.Operation claimAck(int batch) {
            return (thread, n) -> {
                List<Job> jobs = queue.claim(batch);
                for (Job job : jobs) {
                    queue.ack(job);
                }
                return jobs.size();
            };
        }
    }

    Backlog backlog() {
        return new Backlog(WorkQueueOptions.defaults().leaseDuration(Duration.ofMinutes(5)));
    }

    Harness.Operation increment(int keys) {
        Counters c = rq.counters(fresh("c"));
        return (thread, n) -> {
            c.increment(keys == 1 ? "hot" : "k" + ThreadLocalRandom.current().nextInt(keys));
            return 1;
        };
    }
}
