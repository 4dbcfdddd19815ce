package dev.rowqueue.internal;

import dev.rowqueue.Counters;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.NodeInfo;
import dev.rowqueue.OperationListener;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleListener;
import dev.rowqueue.Schedules;
import dev.rowqueue.SchemaScripts;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.TransactionBinding;
import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/** The {@link RowQueues} implementation. */
public final class DefaultRowQueues implements RowQueues {
    private static final Logger log = LoggerFactory.getLogger(DefaultRowQueues.class);

    /**
     * What the builder collected; {@code claimConcurrency} 0 and {@code retry} {@code null} mean the dialect's,
     * {@code transactionBinding} {@code null} none.
     */
    public record Settings(DataSource dataSource, List<DialectProvider> dialects, String dialectName,
                           Map<String, String> dialectOptions, boolean createSchema, RetryPolicy retry,
                           int maxPayloadLength, Duration pollInterval, int claimConcurrency,
                           TransactionBinding transactionBinding, List<OperationListener> operationListeners,
                           boolean recordActivity, Scheduling scheduling, Duration statementTimeout,
                           String nodeName, boolean registerNode) {
    }

    /**
     * The scheduler's settings.
     *
     * @param enabled      whether this instance may fire due schedules, once {@code schedules().startScheduler()} is
     *                     called
     * @param pollInterval how often it looks for due schedules
     * @param listeners    told what it fired
     */
    public record Scheduling(boolean enabled, Duration pollInterval, List<ScheduleListener> listeners) {
    }

    /**
     * What every handle of one instance shares; {@code wakeups} is the dialect's, or {@code null} where the database
     * cannot signal, and then {@code local} wakes waiters on this instance's own writes ({@link LocalWakeups}); and
     * {@code operations} where no operation listener is registered (then no handle is decorated,
     * {@link #handle}). Claims on a caller's connection pass no gate.
     */
    record Context(Dialect dialect, Executor executor, int maxPayloadLength, Duration pollInterval,
                   WakeupSource wakeups, LocalWakeups local, ClaimGates claimGates, Operations operations,
                   ActivityRecorder activity, Lifecycle lifecycle, SchemaManager schema, NodeRegistry node) {
        Context bound(Connection connection) {
            return new Context(dialect, new BoundExecutor(connection, dialect), maxPayloadLength, pollInterval,
                    wakeups, local, ClaimGates.NONE, operations, activity, lifecycle, schema, node);
        }

        /** @return this context for work that never joins a caller's transaction (a worker's) */
        Context own() {
            Executor own = executor.own();
            return own == executor ? this : new Context(dialect, own, maxPayloadLength, pollInterval, wakeups,
                    local, claimGates, operations, activity, lifecycle, schema, node);
        }

        /** @return what idle workers and blocking claims wait on: the dialect's wake-ups, else this instance's */
        WakeupSource waitOn() {
            return wakeups != null ? wakeups : local;
        }

        /**
         * @return whether {@link #waitOn()} wakes only for this instance's writes, so that a waiter still polls, with
         *         backoff, for the other instances'
         */
        boolean waitOnPolls() {
            return wakeups == null;
        }

        /**
         * Tells this instance's waiters of a queue that jobs became claimable now, where the dialect does not (its
         * statements signal on their own): once the operation that made them claimable has committed, which is at
         * the caller's commit where it joined the caller's transaction ({@link Executor#afterCommit}).
         *
         * @param queue the queue's name
         */
        void claimable(String queue) {
            if (local != null) {
                executor.afterCommit(() -> local.signal(queue));
            }
        }

        /**
         * Every handle is made here: where operation listeners are registered, wrapped in the decorator that times its
         * operations and reports them ({@link Operations}); otherwise it is returned as it is, so its operations
         * neither read the clock nor allocate for listeners.
         *
         * @param handle    the handle that does the work
         * @param decorator makes the reporting handle around it
         * @param <H>       the handle's type
         * @return the handle callers get
         */
        <H> H handle(H handle, BiFunction<H, Operations, H> decorator) {
            return operations == null ? handle : decorator.apply(handle, operations);
        }

        /**
         * Every operation of every handle runs through its executor, so this is where a closed instance refuses.
         *
         * @return the executor
         * @throws IllegalStateException once the instance is closed
         */
        @Override
        public Executor executor() {
            lifecycle.check();
            return executor;
        }

        /**
         * Runs several steps of one operation (a claim through its gate) in the context the calling thread's
         * operations have now: bound to the caller's transaction when the transaction binding has one (the binding is
         * asked once), this one otherwise.
         */
        <R> R current(String what, Function<Context, R> body) {
            return executor.withCaller(what, c -> body.apply(c == null ? own() : bound(c)));
        }
    }

    private final Context context;
    private final SchemaManager schema;
    private final DatabaseInfo info;
    private final Executor pooled;
    private final Scheduling scheduling;
    private DefaultSchedules schedules;

    private DefaultRowQueues(Context context, SchemaManager schema, DatabaseInfo info, Executor pooled,
                             Scheduling scheduling) {
        this.context = context;
        this.schema = schema;
        this.info = info;
        this.pooled = pooled;
        this.scheduling = scheduling;
    }

    /**
     * @param s the builder's settings
     * @return a ready instance
     */
    public static RowQueues create(Settings s) {
        DatabaseProduct product;
        Dialect dialect;
        String database;
        HotRowTurns turns;
        // the probes create scratch tables: they take this JVM's lock of the database's schema creation, so that no
        // probe's DDL meets another's or a queue's (engines that stall on concurrent DDL, SchemaManager#creationLock)
        java.util.concurrent.locks.ReentrantLock ddl = null;
        try {
            try (Connection c = s.dataSource().getConnection()) {
                product = DatabaseProduct.of(c.getMetaData());
                database = dev.rowqueue.support.Jdbc.databaseIdentity(c.getMetaData());
                ddl = SchemaManager.creationLock(database);
                ddl.lock();
                dialect = DialectResolver.resolve(s.dialects(), s.dialectName(), product, s.dialectOptions(), c);
            } catch (SQLException e) {
                throw new RowQueueException("cannot read the database's metadata, or ask it what it accepts, to choose a"
                        + " dialect: " + Errors.describe(e), e);
            }
            try { // what the dialect asks on connections of its own (how two transactions on one row meet)
                dialect = dialect.refine(s.dataSource());
            } catch (SQLException e) {
                throw new RowQueueException("dialect " + dialect.name() + " cannot ask the database what it needs to"
                        + " know: " + Errors.describe(e), e);
            }
            // where a second writer of a row fails instead of waiting, writers of one hot row take turns in this JVM
            turns = dialect.policy().hotRowTurns() ? HotRowTurns.of(database) : null;
        } finally {
            if (ddl != null) {
                ddl.unlock();
            }
        }
        checkSession(s.dataSource(), dialect);
        int max = dialect.maxPayloadLength();
        if (s.maxPayloadLength() > max) {
            throw new IllegalArgumentException("maxPayloadLength " + s.maxPayloadLength() + " exceeds what dialect "
                    + dialect.name() + " stores (" + max + ")");
        }
        if (s.maxPayloadLength() > 0) {
            max = s.maxPayloadLength();
        }
        Executor pooled = new PooledExecutor(s.dataSource(), dialect,
                s.retry() != null ? s.retry() : dialect.policy().retryPolicy(), turns, s.statementTimeout());
        Executor executor = s.transactionBinding() == null ? pooled
                : new JoiningExecutor(pooled, s.transactionBinding(), s.dataSource(), dialect);
        WakeupSource wakeups = dialect.wakeupSource(s.dataSource(), s.pollInterval()).orElse(null);
        int claims = s.claimConcurrency() > 0 ? s.claimConcurrency() : dialect.policy().claimConcurrency();
        // tables and the catalog never join a caller's transaction: DDL commits on some databases, and a creation
        // rolled back with the caller's transaction would be remembered as done
        SchemaManager schema = new SchemaManager(dialect, pooled, s.createSchema());
        Lifecycle lifecycle = new Lifecycle();
        Context context = new Context(dialect, executor, max, s.pollInterval(), wakeups,
                wakeups == null ? new LocalWakeups() : null,
                ClaimGates.of(claims, dialect.policy().sharedClaimGates() ? database : null),
                Operations.of(s.operationListeners()), s.recordActivity()
                        ? new ActivityRecorder(dialect, pooled, true, System::currentTimeMillis)
                        : ActivityRecorder.off(dialect, pooled),
                lifecycle, schema, new NodeRegistry(dialect, pooled, schema::ensureCatalog, lifecycle::workerThreads,
                        s.nodeName(), s.registerNode()));
        DatabaseInfo info = new DatabaseInfo(product.productName(), product.productVersion(),
                product.driverName() + " " + product.driverVersion(), dialect.name(), dialect.capabilities(), max,
                dialect.toString());
        log.info("rowqueue: {} served by dialect '{}' with {}; claims of one queue at once: {}{}",
                dialect, dialect.name(), dialect.capabilities(),
                claims == Integer.MAX_VALUE ? "no limit" : claims,
                turns == null ? "" : "; writers of one hot row take turns in this JVM");
        return new DefaultRowQueues(context, schema, info, pooled,
                s.scheduling() != null ? s.scheduling() : new Scheduling(true, Duration.ofSeconds(1), List.of()));
    }

    @Override
    public RingQueue ring(String name, int capacity) {
        return ring(name, RingOptions.ofCapacity(capacity));
    }

    @Override
    public RingQueue ring(String name, RingOptions options) {
        context.lifecycle().check();
        String n = Validation.queueName(name);
        Objects.requireNonNull(options, "options");
        if (!context.dialect().supports(options.strategy())) {
            throw new IllegalArgumentException("dialect '" + context.dialect().name() + "' does not offer ring strategy "
                    + options.strategy() + " on " + context.dialect().product().describe() + "; it offers "
                    + context.dialect().capabilities());
        }
        schema.ensure(SchemaManager.Definition.ring(n, options));
        return context.handle(new DefaultRingQueue(n, options, context.dialect().ringStore(RingTables.of(n), options),
                context), ObservedRingQueue::new);
    }

    @Override
    public WorkQueue workQueue(String name) {
        return workQueue(name, WorkQueueOptions.defaults());
    }

    @Override
    public WorkQueue workQueue(String name, WorkQueueOptions options) {
        context.lifecycle().check();
        String n = Validation.queueName(name);
        Objects.requireNonNull(options, "options");
        schema.open(SchemaManager.Definition.of(n, QueueKind.WORK));
        return context.handle(new DefaultWorkQueue(n, options, context.dialect().workStore(WorkTables.of(n)), context),
                ObservedWorkQueue::new);
    }

    @Override
    public Counters counters(String name) {
        context.lifecycle().check();
        String n = Validation.queueName(name);
        schema.ensure(SchemaManager.Definition.of(n, QueueKind.COUNTERS));
        return context.handle(new DefaultCounters(n, context.dialect().counterStore(CounterTable.of(n)), context),
                ObservedCounters::new);
    }

    @Override
    public SchemaScripts schema() {
        context.lifecycle().check();
        return new DefaultSchemaScripts(context.dialect());
    }

    @Override
    public List<dev.rowqueue.SchemaDifference> checkSchema() {
        context.lifecycle().check();
        List<dev.rowqueue.SchemaDifference> differences = new java.util.ArrayList<>(
                schema.differences(List.of(dev.rowqueue.spi.Schema.catalog())));
        if (!differences.isEmpty() && differences.stream().anyMatch(dev.rowqueue.SchemaDifference::guarantee)) {
            return differences; // no catalog to read the queues from
        }
        differences.addAll(schema.differences(List.of(dev.rowqueue.spi.Schema.activity())));
        for (QueueInfo q : schema.readCatalog()) {
            SchemaManager.Definition d = new SchemaManager.Definition(q.name(), q.kind(), q.capacity(), q.strategy());
            differences.addAll(schema.differences(schema.expectedTables(d)));
        }
        if (schema.schedulesExist()) {
            differences.addAll(schema.differences(List.of(dev.rowqueue.spi.Schema.schedules(),
                    dev.rowqueue.spi.Schema.scheduleSlots())));
        }
        return List.copyOf(differences);
    }

    @Override
    public List<QueueInfo> queues() {
        context.lifecycle().check();
        return schema.readCatalog();
    }

    @Override
    public boolean dropQueue(String name) {
        context.lifecycle().check();
        return schema.drop(Validation.queueName(name));
    }

    @Override
    public synchronized Schedules schedules() {
        context.lifecycle().check();
        if (schedules == null) {
            schema.ensureSchedules();
            schedules = newSchedules(); // not started: only startScheduler() starts the scheduler thread
        }
        return schedules;
    }

    @Override
    public synchronized Optional<Schedules> existingSchedules() {
        context.lifecycle().check();
        if (schedules == null) {
            if (!schema.schedulesExist()) {
                return Optional.empty();
            }
            schedules = newSchedules(); // not started: only startScheduler() starts the scheduler thread
        }
        return Optional.of(schedules);
    }

    private DefaultSchedules newSchedules() {
        Lifecycle lifecycle = context.lifecycle();
        Executor checked = new Executor() { // a closed instance's schedules handle refuses too
            @Override
            public <R> R run(String what, dev.rowqueue.spi.SqlOp<R> op) {
                lifecycle.check();
                return pooled.run(what, op);
            }
        };
        return new DefaultSchedules(context.dialect(), checked, schema, context.maxPayloadLength(),
                scheduling.pollInterval(), scheduling.listeners(), scheduling.enabled(),
                // its heartbeat tells tools that a scheduler is alive
                () -> context.node().schedulerStarted());
    }

    @Override
    public DatabaseInfo database() {
        return info;
    }

    @Override
    public List<NodeInfo> nodes() {
        context.lifecycle().check();
        schema.ensureCatalog();
        return context.node().read(pooled);
    }

    @Override
    public long nodeId() {
        return context.node().id();
    }

    @Override
    public void close() {
        if (context.lifecycle().closed()) {
            return;
        }
        DefaultSchedules running;
        synchronized (this) {
            running = schedules;
        }
        if (running != null) {
            running.close(); // first: a fire in progress ends before anything else is released
        }
        context.lifecycle().close(); // stops the workers, whose last counts the activity recorder then writes
        context.activity().close();
        context.node().close();
        context.waitOn().close();
    }

    @Override
    public String toString() {
        return "RowQueues[" + context.dialect() + "]";
    }

    /**
     * Borrows a connection as an operation would, lets the dialect pin its session settings on it and read the
     * actual values of those it depends on ({@link Dialect#checkSession}): a server configured so that the dialect's
     * SQL cannot run is refused here, with the setting and its value, and not by every operation after.
     *
     * @throws dev.rowqueue.SessionSettingException from the dialect
     * @throws RowQueueException if the settings cannot be read
     */
    private static void checkSession(javax.sql.DataSource dataSource, Dialect dialect) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            dialect.prepareConnection(c);
            dialect.checkSession(c);
        } catch (SQLException e) {
            if (dialect.classify(e).transientFailure()) {
                // a node not ready yet (Galera's 1047, a failover under way): every operation pins on its own borrow,
                // and only values read here are refused; the instance starts as it did before it asked
                log.warn("rowqueue: could not check the session settings of dialect '{}' now: {}", dialect.name(),
                        Errors.describe(e));
                return;
            }
            throw new RowQueueException("cannot set or read the session settings dialect " + dialect.name()
                    + " depends on (" + dialect.sessionSettings().stream().map(dev.rowqueue.spi.SessionSetting::name)
                    .collect(java.util.stream.Collectors.joining(", ")) + "): " + Errors.describe(e), e);
        }
    }
}
