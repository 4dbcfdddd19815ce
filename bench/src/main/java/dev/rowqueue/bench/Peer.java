package dev.rowqueue.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.jdbc.JdbcCustomization;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The peer: db-scheduler executing no-op one-time tasks on the same database. On PostgreSQL it is configured as its
 * documentation says for high throughput: {@code pollUsingLockAndFetch(1.0, 4.0)} (one {@code UPDATE ... FOR UPDATE
 * SKIP LOCKED ... RETURNING} picks up to 4 x threads executions; a new fetch starts when as many executions are left
 * as there are threads). db-scheduler implements lock-and-fetch for PostgreSQL and MySQL 8 only, so on MariaDB it
 * runs its default, and only, strategy there, {@code pollUsingFetchAndLockOnExecute(0.5, 3.0)} (a plain fetch of up
 * to 3 x threads due executions, each picked by an optimistic {@code UPDATE ... version = ?} when it runs). Both
 * with {@code threads(n)} at the benchmark's thread count and a short polling interval (only used when a fetch comes
 * back short, which a full backlog never does). Each execution ends with db-scheduler's completion: a
 * {@code DELETE} of the execution by name, instance and version. Executions are counted as they complete.
 */
final class Peer {

    /** db-scheduler 16.x's table on MariaDB (its own {@code mariadb_tables.sql}). */
    static final String MARIADB_DDL = "CREATE TABLE scheduled_tasks (task_name VARCHAR(100) NOT NULL,"
            + " task_instance VARCHAR(100) NOT NULL, task_data BLOB, execution_time TIMESTAMP(6) NOT NULL,"
            + " picked BOOLEAN NOT NULL, picked_by VARCHAR(50), last_success TIMESTAMP(6) NULL,"
            + " last_failure TIMESTAMP(6) NULL, consecutive_failures INT, last_heartbeat TIMESTAMP(6) NULL,"
            + " version BIGINT NOT NULL, priority SMALLINT, PRIMARY KEY (task_name, task_instance),"
            + " INDEX execution_time_idx (execution_time), INDEX last_heartbeat_idx (last_heartbeat),"
            + " INDEX priority_execution_time_idx (priority DESC, execution_time ASC))";

    /** db-scheduler 16.x's table on PostgreSQL (its own {@code postgresql_tables.sql}). */
    static final String POSTGRES_DDL = "CREATE TABLE scheduled_tasks (task_name TEXT NOT NULL, task_instance TEXT NOT NULL,"
            + " task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE NOT NULL, picked BOOLEAN NOT NULL,"
            + " picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE, last_failure TIMESTAMP WITH TIME ZONE,"
            + " consecutive_failures INT, last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL,"
            + " priority SMALLINT, PRIMARY KEY (task_name, task_instance));"
            + "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);"
            + "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);"
            + "CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)";

    static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

    /** How db-scheduler polls: its strategy and limits, as fractions of the thread count. */
    enum Polling {
        /** {@code pollUsingLockAndFetch(1.0, 4.0)}: the documented high-throughput setting (PostgreSQL, MySQL 8). */
        LOCK_AND_FETCH(1.0, 4.0),
        /** {@code pollUsingFetchAndLockOnExecute(0.5, 3.0)}: the default, the only strategy on MariaDB. */
        FETCH_AND_LOCK_ON_EXECUTE(0.5, 3.0);

        final double lower;
        final double upper;

        Polling(double lower, double upper) {
            this.lower = lower;
            this.upper = upper;
        }

        SchedulerBuilder apply(SchedulerBuilder b) {
            return this == LOCK_AND_FETCH ? b.pollUsingLockAndFetch(lower, upper)
                    : b.pollUsingFetchAndLockOnExecute(lower, upper);
        }

        @Override
        public String toString() {
            return (this == LOCK_AND_FETCH ? "pollUsingLockAndFetch(" : "pollUsingFetchAndLockOnExecute(") + lower
                    + ", " + upper + ")";
        }
    }

    /** How the peer was configured, for the table's notes. */
    static final String CONFIG = "db-scheduler " + version()
            + ", threads = client threads, " + Polling.LOCK_AND_FETCH + " on PostgreSQL, "
            + Polling.FETCH_AND_LOCK_ON_EXECUTE + " and timestamps in UTC on MariaDB, pollingInterval " + POLLING_INTERVAL.toMillis()
            + " ms, no-op OneTimeTask<Void>";

    /** @return db-scheduler's version, from its jar's Maven metadata */
    static String version() {
        try (java.io.InputStream in = Scheduler.class.getResourceAsStream(
                "/META-INF/maven/com.github.kagkarlsson/db-scheduler/pom.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "(version unknown)");
        } catch (java.io.IOException e) {
            return "(version unknown)";
        }
    }

    private final DataSource ds;
    private final String ddl;
    private final Polling polling;
    private final JdbcCustomization customization;
    private final AtomicLong ids = new AtomicLong();

    /**
     * @param ds            the benchmark's pool
     * @param ddl           db-scheduler's table on this database
     * @param polling       how it polls
     * @param customization db-scheduler's JDBC customization, or {@code null} to let it detect one
     */
    Peer(DataSource ds, String ddl, Polling polling, JdbcCustomization customization) {
        this.ds = ds;
        this.ddl = ddl;
        this.polling = polling;
        this.customization = customization;
    }

    private SchedulerBuilder scheduler(DataSource via, OneTimeTask<Void> task, int threads) {
        SchedulerBuilder b = polling.apply(Scheduler.create(via, task).threads(threads)).pollingInterval(POLLING_INTERVAL);
        return customization == null ? b : b.jdbcCustomization(customization);
    }

    private SchedulerClient client(DataSource via, OneTimeTask<Void> task) {
        SchedulerClient.Builder b = SchedulerClient.Builder.create(via, task);
        return (customization == null ? b : b.jdbcCustomization(customization)).build();
    }

    /** @return how it polls */
    Polling polling() {
        return polling;
    }

    private void freshTable() throws SQLException {
        Targets.sql(ds, "DROP TABLE IF EXISTS scheduled_tasks");
        Targets.sql(ds, ddl.split(";"));
    }

    /** db-scheduler running {@code threads} executor threads over a backlog that is topped up between rounds. */
    final class Executions implements Harness.Observed, AutoCloseable {
        private final int threads;
        private final long floor;
        private final LongAdder done = new LongAdder();
        private final OneTimeTask<Void> task;
        private final SchedulerClient client;
        private Scheduler scheduler;
        private long scheduled;

        /** Set when the scheduler is to start on an analyzed table: the target whose maintenance runs first. */
        private BenchTarget analyzed;

        /** A no-op task, at least 20,000 executions due before each round. */
        Executions(int threads) throws SQLException {
            this(threads, Workers.Handler.NOOP, 20_000);
        }

        /**
         * @param target whose maintenance ({@link Workers#analyze}) runs on the table after the first fill
         * @return this
         */
        Executions analyzedOn(BenchTarget target) {
            this.analyzed = target;
            return this;
        }

        /**
         * @param threads its executor threads
         * @param handler what each execution does before it is counted (the same as the rowqueue worker's handler)
         * @param floor   the fewest executions due before each round
         */
        Executions(int threads, Workers.Handler handler, long floor) throws SQLException {
            this.threads = threads;
            this.floor = floor;
            this.task = Tasks.oneTime(handler == Workers.Handler.NOOP ? "bench-noop" : "bench-" + handler.name())
                    .execute((instance, context) -> {
                        handler.run();
                        done.increment();
                    });
            freshTable();
            client = client(ds, task);
        }

        @Override
        public void beforeRound(boolean timed, double lastRate, long roundNanos) {
            long wanted = (long) Math.max(floor, lastRate * roundNanos / 1e9 * 2);
            long left = scheduled - done.sum();
            if (left < wanted) {
                schedule(wanted - left);
            }
            if (scheduler == null) {
                if (analyzed != null) {
                    try {
                        Workers.analyze(analyzed, "scheduled_tasks");
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
                scheduler = scheduler(ds, task, threads).schedulerName(new SchedulerName.Fixed("bench")).build();
                scheduler.start();
            }
        }

        private void schedule(long n) {
            Instant now = Instant.now();
            for (long i = 0; i < n; i += 1000) {
                List<TaskInstance<?>> batch = new ArrayList<>();
                for (long k = i; k < Math.min(n, i + 1000); k++) {
                    batch.add(task.instance("i" + ids.incrementAndGet()));
                }
                client.scheduleBatch(batch, now);
            }
            scheduled += n;
        }

        @Override
        public long completed() {
            return done.sum();
        }

        /**
         * Stops the scheduler and drops its table, untimed: the next cell must not pay for this one's cleanup (the
         * dead rows of its executions, which autovacuum would clean up during that cell).
         */
        @Override
        public void close() throws SQLException {
            if (scheduler != null) {
                scheduler.stop();
            }
            freshTable();
        }
    }

    /**
     * Enqueue-to-start latency of db-scheduler: a {@link Workers.Trickle} schedules executions due now, one at a time,
     * each instance id carrying the {@link System#nanoTime()} taken just before its {@code schedule}; the task reports
     * it as it starts. The scheduler finds them by polling every {@link #POLLING_INTERVAL}.
     */
    final class Latency extends Workers.StartLatency {
        private final int threads;
        private final OneTimeTask<Void> task;
        private final SchedulerClient client;
        private Scheduler scheduler;

        Latency(int threads, int perSecond) throws SQLException {
            super(perSecond);
            this.threads = threads;
            this.task = Tasks.oneTime("bench-latency").execute((instance, context) -> {
                String id = instance.getId();
                started(Long.parseLong(id.substring(id.indexOf('_') + 1)));
            });
            freshTable();
            this.client = client(ds, task);
        }

        @Override
        void enqueue(long nanos) {
            client.schedule(task.instance("l" + ids.incrementAndGet() + "_" + nanos), Instant.now());
        }

        @Override
        void startConsumer() {
            scheduler = scheduler(ds, task, threads).schedulerName(new SchedulerName.Fixed("bench-latency")).build();
            scheduler.start();
        }

        @Override
        void stopConsumer() {
            scheduler.stop();
        }
    }

    /**
     * db-scheduler's heartbeats: {@code threads} executions that each sleep {@code sleep}, on as many executor threads,
     * with {@code heartbeatInterval(interval)}; counts its heartbeat statements ({@code UPDATE ... SET last_heartbeat
     * = ? WHERE task_name = ? AND task_instance = ? AND version = ?}, one per running execution) and all its
     * statements, from the scheduler's start until the last execution ended.
     *
     * @return what was counted
     * @throws Exception on failure
     */
    Workers.Heartbeats heartbeats(int threads, Duration interval, Duration sleep) throws Exception {
        freshTable();
        java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(threads);
        OneTimeTask<Void> task = Tasks.oneTime("bench-heartbeat").execute((instance, context) -> {
            try {
                Thread.sleep(sleep.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.countDown();
        });
        List<TaskInstance<?>> batch = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            batch.add(task.instance("h" + i));
        }
        client(ds, task).scheduleBatch(batch, Instant.now());
        dev.rowqueue.testkit.CountingDataSource counted = new dev.rowqueue.testkit.CountingDataSource(ds);
        Scheduler scheduler = scheduler(counted, task, threads).heartbeatInterval(interval)
                .schedulerName(new SchedulerName.Fixed("bench-heartbeat")).build();
        counted.record();
        long t0 = System.nanoTime();
        scheduler.start();
        List<String> sql;
        double seconds;
        try {
            if (!finished.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
                throw new IllegalStateException("db-scheduler's sleeping executions did not end in 2 minutes");
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            sql = counted.recorded();
        } finally {
            scheduler.stop();
        }
        java.util.regex.Pattern beat = java.util.regex.Pattern.compile("(?is).*\\bset\\s+last_heartbeat\\s*=\\s*\\?\\s+where\\b.*");
        long beats = sql.stream().filter(s -> beat.matcher(s).matches()).count();
        return new Workers.Heartbeats(beats, beats, sql.size(), seconds);
    }

    /**
     * Schedules {@code n} executions (on the benchmark's pool), then runs them with a scheduler whose connections
     * come from {@code via} (a counting data source on the same database), and returns when all completed.
     *
     * @param via     where the scheduler's connections come from
     * @param threads its executor threads
     * @param n       how many executions
     * @throws Exception on failure or if they do not complete within a minute
     */
    void runCounted(DataSource via, int threads, int n) throws Exception {
        runCounted(via, threads, n, Workers.Handler.NOOP);
    }

    /**
     * {@link #runCounted(DataSource, int, int)} with executions that run {@code handler}.
     *
     * @param via     where the scheduler's connections come from
     * @param threads its executor threads
     * @param n       how many executions
     * @param handler what each execution does
     * @throws Exception on failure or if they do not complete within a minute
     */
    void runCounted(DataSource via, int threads, int n, Workers.Handler handler) throws Exception {
        freshTable();
        LongAdder done = new LongAdder();
        OneTimeTask<Void> task = Tasks.oneTime("bench-count").execute((instance, context) -> {
            handler.run();
            done.increment();
        });
        SchedulerClient client = client(ds, task);
        List<TaskInstance<?>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(task.instance("c" + i));
        }
        client.scheduleBatch(batch, Instant.now());
        Scheduler scheduler = scheduler(via, task, threads).schedulerName(new SchedulerName.Fixed("bench-count")).build();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        scheduler.start();
        try {
            while (done.sum() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("db-scheduler completed " + done.sum() + " of " + n + " in a minute");
                }
                Thread.sleep(5);
            }
        } finally {
            scheduler.stop();
        }
    }

    /**
     * @param via where the client's connections come from
     * @return a client that schedules through {@code via}, for counting its statements
     * @throws SQLException on failure
     */
    Harness.Operation enqueueVia(DataSource via) throws SQLException {
        freshTable();
        OneTimeTask<Void> task = Tasks.oneTime("bench-enqueue").execute((instance, context) -> { });
        SchedulerClient client = client(via, task);
        return (thread, n) -> {
            client.schedule(task.instance("e" + ids.incrementAndGet()), Instant.now());
            return 1;
        };
    }

    /**
     * @param n executions per call
     * @return the scheduling of {@code n} executions due now in one {@code scheduleBatch} (its batch enqueue)
     * @throws SQLException on failure
     */
    Harness.Operation enqueueBatch(int n) throws SQLException {
        return enqueueBatchVia(ds, n);
    }

    /**
     * @param via where the client's connections come from
     * @param n   executions per call
     * @return {@link #enqueueBatch} through {@code via}, for counting its statements
     * @throws SQLException on failure
     */
    Harness.Operation enqueueBatchVia(DataSource via, int n) throws SQLException {
        freshTable();
        OneTimeTask<Void> task = Tasks.oneTime("bench-enqueue").execute((instance, context) -> { });
        SchedulerClient client = client(via, task);
        return (thread, count) -> {
            List<TaskInstance<?>> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                batch.add(task.instance("e" + ids.incrementAndGet()));
            }
            client.scheduleBatch(batch, Instant.now());
            return n;
        };
    }

    /** @return the scheduling of one execution due now, through db-scheduler's client (its enqueue) */
    Harness.Operation enqueue() throws SQLException {
        return enqueueVia(ds);
    }
}
