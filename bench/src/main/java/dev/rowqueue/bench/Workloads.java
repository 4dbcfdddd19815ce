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
import dev.rowqueue.spi.WorkTables;

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
    private final BenchTarget target;
    private final String varchar;
    private final AtomicLong names = new AtomicLong();
    private final AtomicLong naiveIds = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();

    Workloads(BenchTarget target, RowQueues rq) {
        this.ds = target.dataSource();
        this.target = target;
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

    /** The limit for updates: one single-row UPDATE in its own transaction, of a random one of {@code rows} rows. */
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

    /**
     * The naive ring the source articles argue against: insert, count, delete the oldest beyond the cap, one
     * transaction.
     */
    Harness.Operation naiveRing(int groups, int capacity, int threads) throws SQLException {
        String t = fresh("b_naive");
        sql("CREATE TABLE " + t + " (grp " + varchar + " NOT NULL, id BIGINT NOT NULL, payload " + varchar
                + " NOT NULL, PRIMARY KEY (grp, id))");
        return (thread, n) -> {
            String g = group(groups, thread, n, threads, false);
            for (int attempt = 1; ; attempt++) {
                try {
                    naivePush(t, g, capacity, n);
                    return 1;
                } catch (SQLException e) {
                    if (!deadlock(e) || attempt == 100) {
                        throw e;
                    }
                    retries.incrementAndGet(); // what an application would do: run the transaction again
                }
            }
        };
    }

    /** @return whether the database rolled the transaction back (deadlock, serialization failure) */
    private static boolean deadlock(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.startsWith("40") || e.getErrorCode() == 1213 || e.getErrorCode() == 90131;
    }

    /** @return transactions of the baselines run again after a deadlock, so far */
    long retries() {
        return retries.get();
    }

    private void naivePush(String t, String g, int capacity, long n) throws SQLException {
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
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    // ------------------------------------------------------------------ rowqueue

    Harness.Operation ringPush(int groups, int capacity, RingStrategy strategy, int threads) {
        RingQueue ring = rq.ring(fresh("r"), RingOptions.ofCapacity(capacity).withStrategy(strategy));
        boolean owned = strategy == RingStrategy.SINGLE_WRITER;
        return (thread, n) -> {
            ring.push(group(groups, thread, n, threads, owned), "payload-" + n);
            return 1;
        };
    }

    Harness.Operation enqueue() {
        WorkQueue q = rq.workQueue(fresh("w")).create();
        return (thread, n) -> {
            q.enqueue("payload-" + n);
            return 1;
        };
    }

    /**
     * A queue with jobs to claim. Between rounds (untimed) it is topped up to twice what the last round consumed, so a
     * claim never finds it empty; the big-backlog variant starts with a million jobs, one chunk in ten of them dead.
     */
    final class Backlog implements Harness.Hooks {
        final WorkQueue queue;
        private final AtomicLong enqueued = new AtomicLong();
        private final AtomicLong processed = new AtomicLong();
        private final long floor;
        private long wanted;
        private long ranDry = 1;
        private int rounds;

        /** Keys the jobs are spread over, round-robin; 0 for jobs without a key. */
        private final int keys;

        Backlog(long floor) {
            this(floor, WorkQueueOptions.defaults(), 0);
        }

        /**
         * @param floor   the fewest live jobs kept before each round
         * @param options the queue handle's options (a per-key limit, fair claims); its lease is set to 5 minutes
         * @param keys    how many keys the jobs are spread over, round-robin in enqueue order; 0 for none
         */
        Backlog(long floor, WorkQueueOptions options, int keys) {
            this.queue = rq.workQueue(fresh("w"), options.withLeaseDuration(Duration.ofMinutes(5))).create();
            this.floor = floor;
            this.keys = keys;
        }

        /** @return live jobs not yet processed */
        long live() {
            return enqueued.get() - processed.get();
        }

        void fill(long jobs) {
            if (keys > 0) {
                fillKeyed(jobs);
                return;
            }
            List<String> chunk = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                chunk.add("job");
            }
            for (long done = 0; done < jobs; done += chunk.size()) {
                queue.enqueueAll(chunk, Enqueue.defaults());
            }
            enqueued.addAndGet(jobs);
        }

        /** Jobs spread over the keys: rounds of one small batch per key, so claim order interleaves the keys. */
        private void fillKeyed(long jobs) {
            int perKey = (int) Math.max(1, Math.min(20, jobs / keys));
            List<String> batch = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                batch.add("job");
            }
            long done = 0;
            while (done < jobs) {
                for (int k = 0; k < keys && done < jobs; k++) {
                    queue.enqueueAll(batch, Enqueue.defaults().withKey("key-" + k));
                    done += batch.size();
                }
            }
            enqueued.addAndGet(done);
        }

        /**
         * Fills {@code live} claimable jobs and {@code dead} dead letters, interleaved in chunks of 500 (one chunk in
         * {@code live / dead + 1} dies), so dead rows sit between live ones in id and due-time order. Dead rows are
         * made with one {@code UPDATE} per chunk, the state a job reaches after its last failed attempt.
         */
        void fillWithDead(long live, long dead) throws SQLException {
            long every = Math.max(1, (live + dead) / Math.max(1, dead));
            String kill = "UPDATE " + WorkTables.of(queue.name()).jobs() + " SET state = " + WorkTables.DEAD
                    + ", attempts = 1, last_error = 'bench' WHERE id BETWEEN ? AND ?";
            List<String> chunk = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                chunk.add("job");
            }
            long madeDead = 0;
            long madeLive = 0;
            for (long k = 0; madeDead < dead || madeLive < live; k++) {
                List<Long> ids = queue.enqueueAll(chunk, Enqueue.defaults());
                if ((k % every == every - 1 && madeDead < dead) || madeLive >= live) {
                    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(kill)) {
                        ps.setLong(1, ids.get(0));
                        ps.setLong(2, ids.get(ids.size() - 1));
                        ps.executeUpdate();
                    }
                    madeDead += ids.size();
                } else {
                    madeLive += ids.size();
                    enqueued.addAndGet(ids.size());
                }
            }
        }

        @Override
        public void beforeRound(boolean timed, double lastRate, long roundNanos) throws SQLException {
            if (rounds++ > 0 && live() <= 0) {
                ranDry *= 4; // the last round emptied the queue, so its rate understates what a full queue allows
            }
            wanted = Math.max(wanted, Math.max(floor, (long) (lastRate * roundNanos / 1e9 * 2 * ranDry) + 1000));
            if (live() < wanted) {
                fill(wanted - live());
                if (keys > 0 && rounds == 1) {
                    // as the worker rows do: statistics of the filled table, which a fresh queue lacks until
                    // autovacuum (or the database's own sampling) has seen it; PostgreSQL would otherwise sort the
                    // due jobs of a fair claim instead of walking the fair index
                    Workers.analyze(target, WorkTables.of(queue.name()).jobs());
                }
            }
        }

        /** A round that emptied the queue measured the fill, not the claims: it is run again with more jobs. */
        @Override
        public boolean accept() {
            return live() > 0;
        }

        /** Claims a batch and acks it; returns how many jobs were processed. */
        Harness.Operation claimAck(int batch) {
            return (thread, n) -> {
                List<Job> jobs = queue.claim(batch);
                for (Job job : jobs) {
                    queue.ack(job);
                }
                processed.addAndGet(jobs.size());
                return jobs.size();
            };
        }

        /**
         * A worker loop: each operation acks the batch the thread claimed last time and claims the next in one call
         * ({@link WorkQueue#ackAndClaim}); returns how many jobs it acked. The jobs a thread holds when the cell ends
         * stay leased (the cell's queue is its own).
         *
         * @param batch jobs per claim
         * @param threads the client threads
         * @return the operation
         */
        Harness.Operation workerLoop(int batch, int threads) {
            @SuppressWarnings("unchecked")
            List<Job>[] held = new List[threads];
            return (thread, n) -> {
                List<Job> done = held[thread] == null ? List.of() : held[thread];
                dev.rowqueue.Handoff h = queue.ackAndClaim(done, batch);
                held[thread] = h.claimed();
                int acked = done.size() - h.lost().size();
                processed.addAndGet(acked);
                return acked;
            };
        }
    }

    /** @param floor the fewest live jobs kept before each round */
    Backlog backlog(long floor) {
        return new Backlog(floor);
    }

    /**
     * @param floor   the fewest live jobs kept before each round
     * @param options a per-key limit, fair claims
     * @param keys    how many keys the jobs are spread over
     * @return a backlog of keyed jobs
     */
    Backlog keyedBacklog(long floor, WorkQueueOptions options, int keys) {
        return new Backlog(floor, options, keys);
    }

    /**
     * Enqueue-to-claim latency with blocking claims: one producer enqueues at a fixed rate, each payload the
     * {@link System#nanoTime()} just before its enqueue; the client threads wait in {@code claim(1, maxWait)} and
     * record, per job, the time from that moment to the return of their claim (so the enqueue's own statement and
     * commit are included), then ack it. Reported: jobs per second (the producer's rate when consumers keep up) and
     * the percentiles of those latencies.
     */
    final class EnqueueToClaim implements Harness.Hooks, AutoCloseable {
        private final WorkQueue queue = rq.workQueue(fresh("l")).create();
        private final int perSecond;
        private final Thread producer;
        private final java.util.concurrent.ConcurrentLinkedQueue<Long> samples = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private volatile boolean recording;
        private volatile boolean stop;

        EnqueueToClaim(int perSecond) {
            this.perSecond = perSecond;
            producer = new Thread(this::produce, "bench-producer");
            producer.setDaemon(true);
        }

        private void produce() {
            long interval = 1_000_000_000L / perSecond;
            long next = System.nanoTime();
            while (!stop) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    continue;
                }
                queue.enqueue(Long.toString(System.nanoTime()));
                next += interval;
                if (System.nanoTime() - next > 100 * interval) {
                    next = System.nanoTime(); // fell far behind (a stall): do not burst to catch up
                }
            }
        }

        @Override
        public void beforeRound(boolean timed, double lastRate, long roundNanos) throws SQLException {
            if (!producer.isAlive()) {
                producer.start();
            }
            recording = timed;
        }

        Harness.Operation consume() {
            return (thread, n) -> {
                List<Job> jobs = queue.claim(1, Duration.ofMillis(250));
                long now = System.nanoTime();
                for (Job job : jobs) {
                    if (recording) {
                        samples.add(now - Long.parseLong(job.payload()));
                    }
                    queue.ack(job);
                }
                return jobs.size();
            };
        }

        @Override
        public long[] latencies() {
            return samples.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            producer.join(10_000);
        }
    }

    Harness.Operation increment(int keys) {
        Counters c = rq.counters(fresh("c"));
        return (thread, n) -> {
            c.increment(keys == 1 ? "hot" : "k" + ThreadLocalRandom.current().nextInt(keys));
            return 1;
        };
    }
}
