package dev.rowqueue;

import dev.rowqueue.internal.DefaultRowQueues;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.TransactionBinding;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The entry point: ring queues, work queues and counters on ordinary tables of one database.
 *
 * <pre>{@code
 * RowQueues rq = RowQueues.builder(dataSource).build();   // dialect detected from DatabaseMetaData
 * RingQueue recent = rq.ring("recent_views", 10);
 * recent.push("article-42", "alice");
 * }</pre>
 *
 * <p>An instance is thread-safe and cheap to keep; it holds no connection between operations. Every operation
 * borrows a connection from the {@link DataSource}, runs in its own short transaction and retries transient
 * failures (see {@link RetryPolicy}). Handles can instead be bound to a caller's connection with
 * {@code using(Connection)}, so that their writes commit or roll back with the caller's own, or every operation can
 * join the calling thread's current transaction through a {@link Builder#transactionBinding(TransactionBinding)}
 * (what the Spring Boot starter registers).
 *
 * <p>Queue names become table names: they are validated ({@code [A-Za-z][A-Za-z0-9_]*}, at most
 * {@value #MAX_NAME_LENGTH} characters, no SQL reserved word), folded to lower case, and the tables are created
 * on first use unless {@link Builder#createSchema(boolean)} turns that off: a ring or counters table when its handle
 * is made, a work queue at its first enqueue (or {@link WorkQueue#create()}), never by a consumer.
 */
public interface RowQueues extends AutoCloseable {

    /** The default {@link Builder#statementTimeout}: 30 s. */
    Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);

    /** The longest queue name: 30 characters (Oracle's identifier limit) less the longest table suffix. */
    int MAX_NAME_LENGTH = 25;

    /**
     * A builder for a {@code RowQueues} on the given data source.
     *
     * @param dataSource where the tables live; rowqueue never closes it
     * @return a builder with sensible defaults
     */
    static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * A capped FIFO ring queue with the default {@link RingStrategy#SAFE} strategy.
     *
     * @param name     the queue (and table) name
     * @param capacity how many entries each group keeps, at least 1
     * @return a thread-safe handle
     * @throws IllegalArgumentException for an invalid name or a capacity below 1, before any SQL runs
     * @throws QueueConflictException   if the queue exists with another capacity, strategy or kind
     */
    RingQueue ring(String name, int capacity);

    /**
     * A capped FIFO ring queue with explicit options.
     *
     * @param name    the queue (and table) name
     * @param options capacity and push strategy
     * @return a thread-safe handle
     * @throws IllegalArgumentException if the name is invalid or the dialect does not offer the strategy
     */
    RingQueue ring(String name, RingOptions options);

    /**
     * A work queue with {@link WorkQueueOptions#defaults() default options}. This does not create the queue: the first
     * enqueue, or {@link WorkQueue#create()}, does; consumers on a queue that does not exist yet get nothing and one
     * warning (see {@link WorkQueue}).
     *
     * @param name the queue (and table) name
     * @return a thread-safe handle
     * @throws IllegalArgumentException for an invalid name, before any SQL runs
     * @throws QueueConflictException   if a queue of that name and another kind exists
     */
    WorkQueue workQueue(String name);

    /**
     * A work queue; like {@link #workQueue(String)}, this does not create it.
     *
     * @param name    the queue (and table) name
     * @param options lease, retry and dead-letter settings of this handle
     * @return a thread-safe handle
     */
    WorkQueue workQueue(String name, WorkQueueOptions options);

    /**
     * A table of named counters (single-row sequence generators).
     *
     * @param name the table name
     * @return a thread-safe handle
     */
    Counters counters(String name);

    /**
     * The DDL this instance would run, as text, for teams that manage schema with Flyway or Liquibase.
     *
     * @return the schema scripts of this database's dialect
     */
    SchemaScripts schema();

    /**
     * Compares the live database with what this instance's dialect would create, from the database's catalogue (JDBC
     * {@code DatabaseMetaData}), as Flyway's {@code validate} does for migrations: the catalog and activity tables,
     * every queue in the catalog, and the schedule tables where they exist. Creates nothing. Opening a queue runs
     * the same check on its tables (a missing table, column, NOT NULL or primary key fails the open; a missing unique
     * index of unique keys makes unique enqueues refuse; a missing index that serves speed alone is logged at WARN).
     *
     * @return the differences, empty when the database has everything; each names the object and the DDL that makes
     *         it
     */
    List<SchemaDifference> checkSchema();

    /**
     * The queues registered in this database's catalog table, in name order.
     *
     * @return every ring, work queue and counter table rowqueue knows in this database
     */
    List<QueueInfo> queues();

    /**
     * Drops a queue's tables and removes it from the catalog. Its data is gone.
     *
     * @param name the queue name
     * @return {@code true} if the queue existed
     */
    boolean dropQueue(String name);

    /**
     * Recurring jobs: schedules stored in the database that enqueue one job into a work queue at each slot. The first
     * call creates the schedule tables if they are missing; it starts no scheduler: this process fires due schedules
     * only once {@link Schedules#startScheduler()} is called (one job per schedule and slot, whatever the number of
     * schedulers). See {@link Schedules} and {@code docs/schedules.md}.
     *
     * @return the schedules of this database
     */
    Schedules schedules();

    /**
     * The schedules of this database if its schedule tables exist, for tools that look and repair (the operator
     * console): this creates no table and does not start this instance's scheduler thread, even when
     * {@link Builder#scheduler(boolean)} is on; only {@link Schedules#startScheduler()} starts it. Listing, {@code next}, pause,
     * resume and trigger work through the handle returned. On a database without schedule tables it costs one probe
     * per call and returns empty.
     *
     * @return the schedules, or empty if this database has no schedule tables (yet)
     */
    Optional<Schedules> existingSchedules();

    /**
     * What rowqueue detected about the database and which dialect serves it.
     *
     * @return database product, version, driver, dialect and capabilities
     */
    DatabaseInfo database();

    /**
     * The processes using rowqueue on this database, as their heartbeats in {@code rowqueue_nodes} tell: an instance
     * registers there on its first claim, worker or scheduler, beats every {@link NodeInfo#HEARTBEAT} and removes its
     * row on close; a row silent for {@link NodeInfo#EXPIRES_AFTER} is deleted. The holder of a leased job is the node
     * whose id its lease token carries ({@link NodeInfo#idOf(long)}). Reading registers nothing.
     *
     * @return every node row not yet expired, alive or silent ({@link NodeInfo#alive()}), by name, host and pid
     */
    List<NodeInfo> nodes();

    /**
     * @return this instance's node id: the high bits of every lease token it makes ({@link NodeInfo#idOf(long)})
     */
    long nodeId();

    /**
     * Stops this instance's scheduler thread first (a fire in progress ends), then the workers of its queues (each
     * draining as its {@link WorkerOptions#drainTimeout()} allows), and releases what the instance started (never the
     * data source). Afterwards this instance's methods and every operation of its handles throw
     * {@link IllegalStateException}. Closing twice does nothing.
     */
    @Override
    void close();

    /**
     * Configures a {@link RowQueues}. Defaults: dialect detected from {@code DatabaseMetaData}, tables created on
     * first use, the dialect's retry policy ({@link RetryPolicy#defaults()} except on a MariaDB Galera cluster),
     * payloads up to the dialect's limit, claims at once as the dialect
     * suggests.
     */
    final class Builder {
        private final DataSource dataSource;
        private final List<DialectProvider> dialects = new ArrayList<>();
        private String dialectName;
        private final Map<String, String> dialectOptions = new LinkedHashMap<>();
        private boolean createSchema = true;
        /** {@code null}: the dialect's ({@link dev.rowqueue.spi.DialectPolicy#retryPolicy()}). */
        private RetryPolicy retryPolicy;
        private int maxPayloadLength = -1;
        private Duration pollInterval = Duration.ofMillis(200);
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
        private int claimConcurrency;
        private TransactionBinding transactionBinding;
        private final List<OperationListener> operationListeners = new ArrayList<>();
        private boolean recordActivity = true;
        private String nodeName;
        private boolean registerNode = true;
        private boolean scheduler = true;
        private Duration schedulerPollInterval = Duration.ofSeconds(1);
        private final List<ScheduleListener> scheduleListeners = new ArrayList<>();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * Registers a dialect explicitly. Registered dialects are asked before those found by
         * {@link java.util.ServiceLoader}, in registration order, so an explicit registration wins.
         *
         * @param provider the dialect provider
         * @return this builder
         */
        public Builder registerDialect(DialectProvider provider) {
            dialects.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /**
         * Forces the dialect with this name (for example {@code "h2"}, {@code "portable"}) instead of detecting
         * one. The database version is still read from {@code DatabaseMetaData} for version gates.
         *
         * @param name a dialect name known to a registered or discovered provider
         * @return this builder
         */
        public Builder dialect(String name) {
            this.dialectName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Sets a dialect-specific option, for example forcing a claim path. Unknown keys are refused by the
         * dialect at build time.
         *
         * @param key   the option key, documented by the dialect
         * @param value its value
         * @return this builder
         */
        public Builder dialectOption(String key, String value) {
            dialectOptions.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Whether missing tables are created on first use (default {@code true}). When {@code false}, a missing
         * table is a {@link SchemaException} naming it; take the DDL from {@link RowQueues#schema()}.
         *
         * @param create whether to create tables
         * @return this builder
         */
        public Builder createSchema(boolean create) {
            this.createSchema = create;
            return this;
        }

        /**
         * How transient failures (deadlock, serialization failure, lost connection before commit) are retried.
         *
         * @param policy the policy; {@link RetryPolicy#none()} turns retries off. Without one, the dialect's default
         *               ({@link RetryPolicy#defaults()} on every database but a Galera cluster)
         * @return this builder
         */
        public Builder retry(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Lowers the longest payload accepted, in characters. It cannot exceed what the dialect's column holds.
         *
         * @param maxChars at least 1
         * @return this builder
         */
        public Builder maxPayloadLength(int maxChars) {
            if (maxChars < 1) {
                throw new IllegalArgumentException("maxPayloadLength must be at least 1, got " + maxChars);
            }
            this.maxPayloadLength = maxChars;
            return this;
        }

        /**
         * Bounds how long any one database call of this instance may wait for the network: every connection it
         * borrows gets {@link java.sql.Connection#setNetworkTimeout} for the operation (put back afterwards), so a
         * claim, ack, enqueue, read or DDL statement whose server stalls or whose peer vanished without a reset fails
         * after this long instead of waiting for the operating system (about 15 minutes); a worker's heartbeat is
         * bounded more tightly, by its heartbeat period, so it ends before the lease it extends. A call cut off this
         * way fails as a lost connection: retried if it surely did not commit, else an
         * {@link UnknownCommitOutcomeException}. Drivers that do not support network timeouts (embedded databases,
         * which have no network) are not bounded; see docs/reliability.md for each driver.
         *
         * @param timeout a positive duration (default {@link #DEFAULT_STATEMENT_TIMEOUT}); longer than any statement
         *                of this instance should take, DDL on a large table included
         * @return this builder
         */
        public Builder statementTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("statementTimeout must be positive, got " + timeout);
            }
            this.statementTimeout = timeout;
            return this;
        }

        /**
         * The longest sleep between polls of a blocking {@link WorkQueue#claim(int, Duration)} on dialects that
         * cannot be woken by the database (default 200 ms).
         *
         * @param interval a positive duration
         * @return this builder
         */
        public Builder pollInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("pollInterval must be positive, got " + interval);
            }
            this.pollInterval = interval;
            return this;
        }

        /**
         * At most this many claims ({@link WorkQueue#claim}, {@link WorkQueue#ackAndClaim}, {@link WorkQueue#rotate})
         * of one work queue run at once through this instance; more threads claiming wait in the JVM, before they
         * borrow a connection, in arrival order. When a claim finishes, the oldest waiting claim runs <em>together
         * with the others waiting</em> at that moment (same lease duration; not rotations): one statement with all
         * their acks and the sum of their batch sizes, whose jobs are handed out oldest request first, each getting at
         * most what it asked for. So sixteen threads each claiming one job cost about as many statements as a few
         * claims of a batch. Claims on a caller's connection ({@code using(connection)}) are not counted.
         *
         * <p>Default: the dialect's ({@link dev.rowqueue.spi.DialectPolicy#claimConcurrency()}): on PostgreSQL, MySQL
         * and MariaDB the number of processors of this JVM, at least 2; no limit on H2, Oracle and Db2; one on SQLite,
         * which runs one writer at a time, and with the portable dialect. With more consumer threads than cores, the
         * limit and the claims running together raise throughput, most for one job per claim.
         *
         * @param claims at least 1; {@link Integer#MAX_VALUE} for no limit (and no claims run together)
         * @return this builder
         */
        public Builder claimConcurrency(int claims) {
            if (claims < 1) {
                throw new IllegalArgumentException("claimConcurrency must be at least 1, got " + claims);
            }
            this.claimConcurrency = claims;
            return this;
        }

        /**
         * Makes operations join the calling thread's current transaction, as a framework manages it, when it has one:
         * an {@code enqueue} or {@code push} in a transaction then commits or rolls back with the caller's other writes,
         * as on a handle bound with {@code using(connection)}, and runs in a transaction of its own otherwise. Workers,
         * table creation and the catalog never join (see {@link TransactionBinding}). Default: none, every operation
         * runs in its own transaction.
         *
         * @param binding asked before each operation for the caller's transaction's connection
         * @return this builder
         */
        public Builder transactionBinding(TransactionBinding binding) {
            this.transactionBinding = Objects.requireNonNull(binding, "binding");
            return this;
        }

        /**
         * Adds a listener told about every operation of this instance's handles (see {@link OperationListener}):
         * metrics such as {@code rowqueue-micrometer}'s. May be called several times; listeners run in registration
         * order. Without one, operations are not timed at all.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder operationListener(OperationListener listener) {
            operationListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Whether this instance counts what its work queues do per minute for {@link WorkQueue#activity()} (default
         * {@code true}). Counting costs no statement per job: the counts are kept in memory and written once a minute,
         * all queues in one batched {@code INSERT}, with a deletion of rows older than an hour every tenth minute
         * (about 1.1 statements per minute per instance, on a daemon thread started by the first count). Turned off,
         * this instance writes nothing, and {@code activity()} shows what other instances wrote.
         *
         * @param record whether to record
         * @return this builder
         */
        public Builder recordActivity(boolean record) {
            this.recordActivity = record;
            return this;
        }

        /**
         * Whether this instance may fire due schedules (default {@code true}). Either way its scheduler thread runs
         * only after {@code schedules().startScheduler()}; with {@code false} that call throws, so a tool or process
         * that must never fire schedules can say so once. It still defines, pauses and lists them.
         *
         * @param enabled whether {@link Schedules#startScheduler()} may start a scheduler in this instance
         * @return this builder
         */
        public Builder scheduler(boolean enabled) {
            this.scheduler = enabled;
            return this;
        }

        /**
         * How often the scheduler selects the due schedules (default 1 s): one statement per poll, for all schedules
         * together. A slot is enqueued at most about this long after its time.
         *
         * @param interval a positive duration
         * @return this builder
         */
        public Builder schedulerPollInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("schedulerPollInterval must be positive, got " + interval);
            }
            this.schedulerPollInterval = interval;
            return this;
        }

        /**
         * Adds a listener told what this instance's scheduler fired, fired late, or missed (metrics such as
         * {@code rowqueue-micrometer}'s).
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder scheduleListener(ScheduleListener listener) {
            scheduleListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Detects the dialect (one connection is borrowed to read {@code DatabaseMetaData}) and builds.
         *
         * @return a ready instance
         * @throws RowQueueException if the database cannot be reached
         */
        public RowQueues build() {
            return DefaultRowQueues.create(new DefaultRowQueues.Settings(dataSource, List.copyOf(dialects),
                    dialectName, Map.copyOf(dialectOptions), createSchema, retryPolicy, maxPayloadLength,
                    pollInterval, claimConcurrency, transactionBinding, List.copyOf(operationListeners),
                    recordActivity,
                    new DefaultRowQueues.Scheduling(scheduler, schedulerPollInterval, List.copyOf(scheduleListeners)),
                    statementTimeout, nodeName, registerNode));
        }

        /**
         * The name this process goes by in {@code rowqueue_nodes} ({@link RowQueues#nodes()}), which the console shows
         * as the holder of the jobs it leases, next to its host and process id (default: the main class, as the JVM
         * was started). Printable ASCII, up to 128 characters; other characters become {@code ?}.
         *
         * @param name a name an operator recognizes, such as the service's
         * @return this builder
         */
        public Builder nodeName(String name) {
            validNodeName(name);
            this.nodeName = name;
            return this;
        }

        /**
         * Whether this instance registers in {@code rowqueue_nodes} when it starts its first worker or its scheduler,
         * and beats there every {@link NodeInfo#HEARTBEAT} (default {@code true}): one short UPDATE per heartbeat on a
         * daemon thread, and a DELETE of expired rows every sixth. Off, its lease tokens still carry its node id, but
         * no console can name it, and {@code rowqueue schedule list} does not see its scheduler.
         *
         * @param register whether to register
         * @return this builder
         */
        public Builder registerNode(boolean register) {
            this.registerNode = register;
            return this;
        }

        private static void validNodeName(String name) {
            if (Objects.requireNonNull(name, "name").isBlank() || name.length() > 128) {
                throw new IllegalArgumentException("nodeName must be 1 to 128 characters, not blank: '" + name + "'");
            }
        }
    }
}
