package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.JobContext;
import dev.rowqueue.JobHandler;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.testkit.DriverManagerDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 15's crash test, for a database server that two JVMs reach: a {@link Worker} in a child JVM is killed with
 * SIGKILL in the middle of its batch, then a second worker (in this JVM) finishes every job. Every handler execution
 * is recorded in a table of its own, its start committed before the work, its end after it, by the handler's own
 * connection, so what the killed JVM was doing survives it.
 *
 * <p>Checked: the child died of SIGKILL while it had executions running and others finished; the queue ends empty
 * (no live or dead job) and every job ran at least once; a job ran twice only if the child had started it and its
 * ack had not committed when the child died (running, or finished with the ack still waiting for the worker's next
 * claim), and then exactly once in each JVM; the jobs the child had acked never ran again; no worker ran a job twice
 * itself (long jobs outlive the lease, so the heartbeats must hold it); and a second execution never started while
 * the first one's lease lived: not before the lease the dead JVM left in the table, and not before
 * {@code start1 + lease - heartbeat - slack}, the earliest end of a lease that was at most a heartbeat old when the
 * first execution started.
 *
 * <p>Times are {@link System#currentTimeMillis()} of the two JVMs and the server's clock (leases), all on one machine.
 * Nothing is timed for speed; every wait is bounded.
 */
public final class WorkerCrashScenario {

    /** Jobs enqueued. */
    public static final int JOBS = 200;
    /** Handler threads of the worker that is killed. */
    public static final int THREADS = 4;
    /**
     * Handler threads of the second worker: enough to be through the jobs nobody held before the dead JVM's leases
     * end, so it waits for those, and a claim that ignored a lease would take them early.
     */
    public static final int SECOND_THREADS = 16;
    /** Jobs each worker claims beyond its free threads. */
    public static final int PREFETCH = 2;
    /** The queue's lease. */
    public static final Duration LEASE = Duration.ofSeconds(2);
    /** The workers' heartbeat: their default, a third of the lease. */
    public static final Duration HEARTBEAT = LEASE.dividedBy(3);
    /** Every job whose id is a multiple of this runs longer than the lease. */
    public static final int LONG_EVERY = 40;
    /** How long a long job runs. */
    public static final Duration LONG_WORK = LEASE.plusSeconds(1);
    /** The child is killed once this many of its executions have ended (and some are still running). */
    public static final int KILL_AFTER_ENDED = 140;

    /** Clock granularity and scheduling between a heartbeat's due time and its statement. */
    private static final long SLACK_MS = 250;
    /** Between the server's clock and the JVMs': the same clock, read at millisecond granularity. */
    private static final long CLOCK_MS = 50;
    /** For statements sent just before the kill to be executed or rolled back by the server. */
    private static final long SETTLE_MS = 300;
    private static final long PATIENCE_MS = TimeUnit.MINUTES.toMillis(2);
    /** A child that is not killed (the parent died) ends itself after this. */
    private static final long CHILD_LIFETIME_MS = TimeUnit.MINUTES.toMillis(5);
    private static final int SIGKILL_EXIT = 128 + 9;

    private static final String CHILD = "child";
    private static final String SECOND = "second";

    private final DataSource dataSource;
    private final String childUrl;
    private final String user;
    private final String password;
    private final String queue;
    private final String executions;

    private WorkerCrashScenario(DataSource dataSource, String childUrl, String user, String password, String queue) {
        this.dataSource = dataSource;
        this.childUrl = childUrl;
        this.user = user;
        this.password = password;
        this.queue = queue;
        this.executions = executionsTable(queue);
    }

    /**
     * Runs the scenario and asserts what it must show.
     *
     * @param dataSource the database, for this JVM (queue, records, second worker)
     * @param childUrl   a JDBC URL of the same database, for the child JVM (its driver must be on the class path)
     * @param user       the child's user, or {@code null}
     * @param password   the child's password, or {@code null}
     * @param queue      a fresh queue name; the executions go to {@code queue + "_exec"}
     * @return what was seen
     * @throws Exception when the child cannot be started or the database fails
     */
    public static Outcome run(DataSource dataSource, String childUrl, String user, String password, String queue)
            throws Exception {
        return new WorkerCrashScenario(dataSource, childUrl, user, password, queue).run();
    }

    /**
     * What a run saw.
     *
     * @param jobs           jobs enqueued
     * @param childPid       the killed JVM's process id
     * @param childEnded     executions the child finished before it died
     * @param childRunning   executions running in the child when it died (started, never ended)
     * @param unackedEnded   of the child's finished executions, those whose ack had not committed
     * @param leasedAtKill   jobs leased to the child when it died (running, prefetched or just claimed)
     * @param secondRuns     executions of the second worker
     * @param reExecuted     jobs that ran twice (once in each JVM)
     * @param minRerunMs     the shortest time from a job's start in the child to its start in the second worker
     * @param minAfterLeaseMs the shortest time from the end of a lease the dead JVM held to the job's start in the
     *                       second worker (small when the second worker waited for those jobs)
     */
    public record Outcome(int jobs, long childPid, int childEnded, int childRunning, int unackedEnded,
                          int leasedAtKill, int secondRuns, int reExecuted, long minRerunMs, long minAfterLeaseMs) {
    }

    /** One handler execution as recorded. */
    private record Execution(String id, long job, long started, Long ended) {
        boolean isChild() {
            return id.startsWith(CHILD + "-");
        }
    }

    /** A job left in the queue by the killed JVM. */
    private record Left(long id, long dueMs, boolean leased) {
    }

    /** What the killed JVM left: its executions and the jobs still in the queue. */
    private record Kill(long pid, long atMs, List<Execution> executions, List<Left> left) {
    }

    /**
     * @param queue the queue
     * @return the table of its executions
     */
    static String executionsTable(String queue) {
        return queue + "_exec";
    }

    /**
     * @param id a job id
     * @return how long its handler works: a long job outlives the lease, the others take 50 to 100 ms
     */
    static long workMs(long id) {
        return id % LONG_EVERY == 0 ? LONG_WORK.toMillis() : 50 + (id * 37) % 51;
    }

    private static WorkQueue queue(RowQueues rq, String name) {
        return rq.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(LEASE));
    }

    private static WorkerOptions workerOptions(int threads) {
        return WorkerOptions.defaults().withThreads(threads).withPrefetch(PREFETCH).withDrainTimeout(Duration.ofSeconds(10));
    }

    private Outcome run() throws Exception {
        try (RowQueues rq = RowQueues.builder(dataSource).build()) {
            WorkQueue q = queue(rq, queue);
            execute("CREATE TABLE " + executions + " (exec_id VARCHAR(40) NOT NULL PRIMARY KEY, job_id BIGINT NOT NULL,"
                    + " started_ms BIGINT NOT NULL, ended_ms BIGINT)");
            Set<Long> ids = new TreeSet<>(q.enqueueAll(Collections.nCopies(JOBS, "job"), Enqueue.defaults()));
            Path log = Files.createTempFile("rowqueue-crash-child-", ".log");
            Process child = startChild(log);
            Kill kill;
            try {
                awaitMidBatch(child, log);
                long pid = child.pid();
                long at = System.currentTimeMillis();
                child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no close, no release
                assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not die");
                assertFalse(child.isAlive(), "the child is alive");
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " lives");
                assertEquals(SIGKILL_EXIT, child.exitValue(), "the child did not die of SIGKILL:\n" + tail(log));
                TimeUnit.MILLISECONDS.sleep(SETTLE_MS);
                kill = new Kill(pid, at, executions(), leftInQueue());
            } finally {
                child.destroyForcibly();
            }

            Outcome outcome;
            try (Recorder second = new Recorder(dataSource, executions, SECOND)) {
                Worker worker = q.worker(second, workerOptions(SECOND_THREADS)).start();
                boolean drained = false;
                try {
                    long deadline = System.currentTimeMillis() + PATIENCE_MS;
                    for (QueueStats s = q.stats(); s.total() > s.dead(); s = q.stats()) { // dead ones fail below
                        assertTrue(System.currentTimeMillis() < deadline, "the second worker did not finish: " + s);
                        TimeUnit.MILLISECONDS.sleep(50);
                    }
                } finally {
                    drained = worker.close(Duration.ofSeconds(30));
                }
                assertTrue(drained, "the second worker's handlers did not finish");
                outcome = check(ids, kill, executions(), q);
            }
            Files.deleteIfExists(log);
            return outcome;
        }
    }

    private Process startChild(Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                Child.class.getName(), childUrl, queue));
        if (user != null) {
            command.add(user);
            command.add(password == null ? "" : password);
        }
        // stdin stays a pipe: the child ends itself when it closes, should this JVM die first
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits until the child has finished some executions and has others running. */
    private void awaitMidBatch(Process child, Path log) throws Exception {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT COUNT(*), COUNT(ended_ms) FROM " + executions)) {
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long started = rs.getLong(1);
                    long ended = rs.getLong(2);
                    if (ended >= KILL_AFTER_ENDED && started > ended) {
                        return;
                    }
                    if (!child.isAlive() || System.currentTimeMillis() > deadline) {
                        fail("the child never was mid-batch (" + started + " started, " + ended + " ended, "
                                + (child.isAlive() ? "alive" : "exited " + child.exitValue()) + "):\n" + tail(log));
                    }
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }

    private Outcome check(Set<Long> ids, Kill kill, List<Execution> all, WorkQueue q) {
        List<Execution> beforeKill = kill.executions();
        List<Left> left = kill.left();
        assertEquals(new HashSet<>(beforeKill), all.stream().filter(Execution::isChild).collect(Collectors.toSet()),
                "the child's records changed after it was seen dead");
        Map<Long, List<Execution>> byJob = all.stream().sorted(Comparator.comparingLong(Execution::started))
                .collect(Collectors.groupingBy(Execution::job));
        Map<Long, Left> leftById = left.stream().collect(Collectors.toMap(Left::id, l -> l));

        // the child really died mid-batch, holding leases that heartbeats kept alive
        List<Execution> childEnded = beforeKill.stream().filter(e -> e.ended() != null).toList();
        List<Execution> childRunning = beforeKill.stream().filter(e -> e.ended() == null).toList();
        assertTrue(childEnded.size() >= KILL_AFTER_ENDED, "the child finished only " + childEnded.size());
        assertFalse(childRunning.isEmpty(), "nothing was running in the child when it died");
        for (Execution e : childRunning) {
            Left l = leftById.get(e.job());
            assertTrue(l != null && l.leased(), "job " + e.job() + " was running in the dead child, yet not leased");
            assertTrue(l.dueMs() > kill.atMs(), "the lease of job " + e.job() + " running in the child ended "
                    + (kill.atMs() - l.dueMs()) + " ms before the kill: no heartbeat?");
        }

        // no execution started while an earlier one's lease lived (checked first: the sharpest message)
        long earliestEnd = LEASE.toMillis() - HEARTBEAT.toMillis() - SLACK_MS;
        long minRerun = Long.MAX_VALUE;
        for (List<Execution> runs : byJob.values()) {
            for (int i = 1; i < runs.size(); i++) {
                Execution first = runs.get(i - 1);
                Execution again = runs.get(i);
                assertTrue(again.started() >= first.started() + earliestEnd, "job " + first.job() + " ran again "
                        + (again.started() - first.started()) + " ms after a start, with a lease of " + LEASE.toMillis()
                        + " ms: " + runs);
                assertTrue(first.ended() == null || again.started() >= first.ended(), "overlap: " + runs);
                minRerun = Math.min(minRerun, again.started() - first.started());
            }
        }
        long minAfterLease = Long.MAX_VALUE;
        for (Left l : left) {
            Execution run = byJob.getOrDefault(l.id(), List.of()).stream().filter(e -> !e.isChild()).findFirst()
                    .orElse(null);
            if (run != null && l.leased()) {
                assertTrue(run.started() >= l.dueMs() - CLOCK_MS, "job " + l.id() + " ran " + (l.dueMs()
                        - run.started()) + " ms before the lease the dead child held ended");
                minAfterLease = Math.min(minAfterLease, run.started() - l.dueMs());
            }
        }

        // a job ran twice only if the child started it and its ack never committed; once in each JVM then
        Set<Long> childStarted = beforeKill.stream().map(Execution::job).collect(Collectors.toSet());
        Set<Long> reExecuted = new TreeSet<>();
        for (long id : ids) {
            List<Execution> runs = byJob.getOrDefault(id, List.of());
            long inChild = runs.stream().filter(Execution::isChild).count();
            long inSecond = runs.size() - inChild;
            boolean acked = !leftById.containsKey(id);
            assertEquals(childStarted.contains(id) ? 1 : 0, inChild, "runs of job " + id + " in the child: " + runs);
            assertEquals(acked ? 0 : 1, inSecond, "runs of job " + id + " in the second worker (acked by the child: "
                    + acked + "): " + runs);
            if (runs.size() > 1) {
                reExecuted.add(id);
            }
        }
        Set<Long> unacked = new HashSet<>(childStarted);
        unacked.retainAll(leftById.keySet());
        assertEquals(unacked, reExecuted, "the jobs that ran twice are those the child started and did not ack");
        assertTrue(reExecuted.containsAll(childRunning.stream().map(Execution::job).toList()));

        // every job ran, the queue is empty
        assertEquals(ids, byJob.keySet(), "the jobs that ran are the jobs enqueued");
        assertEquals(new QueueStats(0, 0, 0, 0), q.stats(), "jobs left");
        assertEquals(List.of(), q.deadLetters(10), "dead jobs");

        int unackedEnded = (int) childEnded.stream().filter(e -> leftById.containsKey(e.job())).count();
        return new Outcome(ids.size(), kill.pid(), childEnded.size(), childRunning.size(), unackedEnded,
                (int) left.stream().filter(Left::leased).count(), all.size() - beforeKill.size(), reExecuted.size(),
                minRerun, minAfterLease);
    }

    private List<Execution> executions() throws SQLException {
        List<Execution> found = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs =
                s.executeQuery("SELECT exec_id, job_id, started_ms, ended_ms FROM " + executions)) {
            while (rs.next()) {
                long ended = rs.getLong(4);
                Long end = rs.wasNull() ? null : ended;
                found.add(new Execution(rs.getString(1), rs.getLong(2), rs.getLong(3), end));
            }
        }
        return found;
    }

    private List<Left> leftInQueue() throws SQLException {
        List<Left> found = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs =
                s.executeQuery("SELECT id, due_ms, lease_token, state FROM " + WorkTables.of(queue).jobs())) {
            while (rs.next()) {
                long id = rs.getLong(1);
                long due = rs.getLong(2);
                rs.getLong(3);
                boolean leased = !rs.wasNull();
                assertEquals(WorkTables.LIVE, rs.getInt(4), "job " + id + " is dead after the kill");
                found.add(new Left(id, due, leased));
            }
        }
        return found;
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /**
     * A handler that records each execution: its start committed before the work, its end after, on a connection of
     * each handler thread.
     */
    static final class Recorder implements JobHandler, AutoCloseable {
        private final DataSource dataSource;
        private final String insert;
        private final String update;
        private final String executor;
        private final AtomicLong number = new AtomicLong();
        private final ThreadLocal<Connection> connection = new ThreadLocal<>();
        private final List<Connection> opened = Collections.synchronizedList(new ArrayList<>());

        Recorder(DataSource dataSource, String table, String executor) {
            this.dataSource = dataSource;
            this.insert = "INSERT INTO " + table + " (exec_id, job_id, started_ms) VALUES (?, ?, ?)";
            this.update = "UPDATE " + table + " SET ended_ms = ? WHERE exec_id = ?";
            this.executor = executor;
        }

        private Connection connection() throws SQLException {
            Connection c = connection.get();
            if (c == null) {
                c = dataSource.getConnection();
                c.setAutoCommit(true);
                opened.add(c);
                connection.set(c);
            }
            return c;
        }

        @Override
        public void handle(JobContext job) throws Exception {
            long started = System.currentTimeMillis();
            String id = executor + "-" + number.incrementAndGet();
            Connection c = connection();
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setString(1, id);
                ps.setLong(2, job.id());
                ps.setLong(3, started);
                ps.executeUpdate();
            }
            TimeUnit.MILLISECONDS.sleep(workMs(job.id()));
            try (PreparedStatement ps = c.prepareStatement(update)) {
                ps.setLong(1, System.currentTimeMillis());
                ps.setString(2, id);
                ps.executeUpdate();
            }
        }

        @Override
        public void close() {
            synchronized (opened) {
                for (Connection c : opened) {
                    try {
                        c.close();
                    } catch (SQLException e) {
                        // a test's connection; the pool or the server cleans up
                    }
                }
            }
        }
    }

    /** The child JVM: a worker on the queue, recording its executions, until it is killed. */
    public static final class Child {
        private Child() {
        }

        /**
         * @param args JDBC URL, queue, and optionally user and password
         * @throws Exception on failure (a non-zero exit the parent reports)
         */
        public static void main(String[] args) throws Exception {
            DataSource ds = new DriverManagerDataSource(args[0], args.length > 2 ? args[2] : null,
                    args.length > 3 ? args[3] : null);
            RowQueues rq = RowQueues.builder(ds).build();
            Recorder recorder = new Recorder(ds, executionsTable(args[1]), CHILD);
            queue(rq, args[1]).worker(recorder, workerOptions(THREADS)).start();
            Thread orphan = new Thread(() -> {
                try {
                    while (System.in.read() != -1) {
                        // the parent keeps the pipe open while it lives
                    }
                } catch (IOException e) {
                    // the parent is gone
                }
                Runtime.getRuntime().halt(3);
            }, "parent-watch");
            orphan.setDaemon(true);
            orphan.start();
            TimeUnit.MILLISECONDS.sleep(CHILD_LIFETIME_MS);
            Runtime.getRuntime().halt(4); // never killed: the parent failed
        }
    }
}
