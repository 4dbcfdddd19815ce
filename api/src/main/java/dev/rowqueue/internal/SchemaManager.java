package dev.rowqueue.internal;

import dev.rowqueue.QueueConflictException;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.SchemaDifference;
import dev.rowqueue.SchemaException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Creates tables on first use (idempotent: "already exists" from a concurrent creator is ignored, then the tables
 * are probed), checks that existing tables are rowqueue's, and keeps the catalog table that records each queue's
 * kind, capacity and strategy.
 */
final class SchemaManager {
    private static final Logger log = LoggerFactory.getLogger(SchemaManager.class);
    static final int SCHEMA_VERSION = dev.rowqueue.spi.Schema.VERSION;

    private static final String CATALOG_COLUMNS = "queue_name, kind, capacity, strategy, schema_version, created_ms";
    private static final String ENTRY_COLUMNS = "grp, slot, seq, payload, pushed_ms";
    private static final String HEAD_COLUMNS = "grp, last_seq";
    private static final String JOB_COLUMNS =
            "id, payload, prio, state, due_ms, attempts, lease_token, enqueued_ms, last_error";
    /** The job columns schema version 2 added. */
    private static final String KEY_COLUMNS = "job_key, unique_key, key_seq";
    private static final String CURSOR_COLUMNS = "cursor_name, last_id";
    private static final String COUNTER_COLUMNS = "counter_key, counter_value";
    private static final String ACTIVITY_V1_COLUMNS = "queue_name, minute_ms, flush_id, n_enqueued, n_finished,"
            + " n_failed";
    private static final String ACTIVITY_COLUMNS = ACTIVITY_V1_COLUMNS + ", n_started, wait_ms_sum, wait_ms_max";
    /** What a DDL statement creates, when it is a table or an index: its kind and name. */
    private static final Pattern CREATES = Pattern.compile(
            "^\\s*CREATE\\s+(?:UNIQUE\\s+)?(TABLE|INDEX)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?\"?(\\w+)",
            Pattern.CASE_INSENSITIVE);
    /** Failed DDL statements already logged at WARN: each once in this JVM, however many nodes or calls hit it. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private final Dialect dialect;
    private final Executor executor;
    private final boolean create;
    private final Map<String, QueueInfo> ensured = new ConcurrentHashMap<>();
    /**
     * Queues whose guarantee indexes ({@link dev.rowqueue.spi.Schema.Index#guarantee()}) were missing when they were
     * opened: the missing indexes, which the operations that need them name when they refuse.
     */
    private final Map<String, List<SchemaDifference>> unguaranteed = new ConcurrentHashMap<>();
    /** Queues found missing and logged so, each once until it exists. */
    private final Set<String> missing = ConcurrentHashMap.newKeySet();
    private volatile boolean catalogReady;
    /**
     * One lock per database ({@link dev.rowqueue.support.Jdbc#databaseIdentity}) for every instance in this JVM: schema
     * creation of one database runs one queue at a time. Connections creating one queue's tables and indexes at the
     * same moment can otherwise wait for each other where the database cannot see the cycle (Derby's compile
     * monitor), which only a lock timeout ends.
     */
    private static final Map<String, ReentrantLock> CREATING = new ConcurrentHashMap<>();
    private volatile ReentrantLock creating;

    SchemaManager(Dialect dialect, Executor executor, boolean create) {
        this.dialect = dialect;
        this.executor = executor;
        this.create = create;
    }

    /** A requested queue definition. */
    record Definition(String name, QueueKind kind, int capacity, RingStrategy strategy) {
        static Definition ring(String name, RingOptions o) {
            return new Definition(name, QueueKind.RING, o.capacity(), o.strategy());
        }

        static Definition of(String name, QueueKind kind) {
            return new Definition(name, kind, 0, null);
        }

        String describe() {
            return kind == QueueKind.RING ? "ring (capacity " + capacity + ", strategy " + strategy + ")"
                    : kind == QueueKind.WORK ? "work queue" : "counters table";
        }
    }

    /** Tables and indexes: on some databases (PostgreSQL) they share one namespace. */
    static List<String> objects(String name, QueueKind kind) {
        return switch (kind) {
            case RING -> RingTables.of(name).objects();
            case WORK -> WorkTables.of(name).objects();
            case COUNTERS -> CounterTable.of(name).objects();
        };
    }

    static List<String> tables(String name, QueueKind kind) {
        return switch (kind) {
            case RING -> RingTables.of(name).tables();
            case WORK -> WorkTables.of(name).tables();
            case COUNTERS -> CounterTable.of(name).tables();
        };
    }

    List<String> ddl(Definition d) {
        return switch (d.kind()) {
            case RING -> dialect.ddl().ring(RingTables.of(d.name()), new RingOptions(d.capacity(), d.strategy()));
            case WORK -> dialect.ddl().work(WorkTables.of(d.name()));
            case COUNTERS -> dialect.ddl().counters(CounterTable.of(d.name()));
        };
    }

    private Map<String, String> probes(String name, QueueKind kind) {
        Map<String, String> probes = new LinkedHashMap<>();
        switch (kind) {
            case RING -> {
                RingTables t = RingTables.of(name);
                probes.put(t.entries(), ENTRY_COLUMNS);
                probes.put(t.heads(), HEAD_COLUMNS);
            }
            case WORK -> {
                WorkTables t = WorkTables.of(name);
                probes.put(t.jobs(), JOB_COLUMNS + ", " + KEY_COLUMNS);
                probes.put(t.cursors(), CURSOR_COLUMNS);
            }
            case COUNTERS -> probes.put(CounterTable.of(name).table(), COUNTER_COLUMNS);
        }
        return probes;
    }

    /**
     * Makes sure the queue's tables exist and are rowqueue's, and that the catalog agrees with the definition.
     */
    QueueInfo ensure(Definition d) {
        QueueInfo known = ensured.get(d.name());
        if (known != null) {
            check(known, d);
            return known;
        }
        ReentrantLock lock = creating();
        lock.lock();
        try {
            return ensureLocked(d);
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param database a database's identity ({@link dev.rowqueue.support.Jdbc#databaseIdentity})
     * @return the lock that every creation of tables on it in this JVM takes: queues' DDL and capability probes
     */
    static ReentrantLock creationLock(String database) {
        return CREATING.computeIfAbsent(database, k -> new ReentrantLock());
    }

    /** @return the lock of this database's schema creation in this JVM */
    private ReentrantLock creating() {
        ReentrantLock lock = creating;
        if (lock == null) {
            String database = executor.run("identify the database", SqlOp.read(
                    c -> dev.rowqueue.support.Jdbc.databaseIdentity(c.getMetaData())));
            lock = creationLock(database);
            creating = lock;
        }
        return lock;
    }

    private QueueInfo ensureLocked(Definition d) {
        QueueInfo known = ensured.get(d.name());
        if (known != null) {
            check(known, d);
            return known;
        }
        ensureCatalog();
        List<QueueInfo> catalog = readCatalog();
        Optional<QueueInfo> existing = catalog.stream().filter(q -> q.name().equals(d.name())).findFirst();
        existing.ifPresent(q -> check(q, d));
        if (existing.isEmpty()) {
            checkCollisions(catalog, d);
        }
        List<DdlFailure> failures = create
                && (dialect.policy().reissuesExistingSchema() || !exist(probes(d.name(), d.kind())))
                ? createAll(ddl(d)) : List.of();
        if (existing.isPresent() && d.kind() == QueueKind.WORK) {
            upgradeWorkQueue(d.name());
        }
        probeAll(probes(d.name(), d.kind()), failures);
        verify(d, failures);
        QueueInfo info = existing.orElseGet(() -> register(d));
        ensured.put(d.name(), info);
        return info;
    }

    /**
     * Opens a queue without creating it: a queue in the catalog is {@linkplain #ensure ensured} (its kind checked, its
     * tables probed, upgraded if old); a queue of that name and another kind fails with {@link QueueConflictException};
     * a queue that does not exist stays so (the catalog table itself may be created).
     *
     * @param d the queue
     * @return whether it exists
     */
    boolean open(Definition d) {
        QueueInfo known = ensured.get(d.name());
        if (known != null) {
            check(known, d);
            return true;
        }
        ensureCatalog();
        Optional<QueueInfo> existing = readCatalog().stream().filter(q -> q.name().equals(d.name())).findFirst();
        if (existing.isPresent()) {
            ensure(d);
            return true;
        }
        return false;
    }

    /**
     * Whether a queue exists, for calls that must not create it (claims, inspection): it is in the catalog, or its
     * main table exists (created by a migration tool and not yet registered), and then it is {@linkplain #ensure
     * ensured}. A queue that does not exist is logged at WARN once per queue, until it exists. A database that cannot
     * be reached throws as any operation does.
     *
     * @param d the queue
     * @return whether it exists
     */
    boolean exists(Definition d) {
        if (ensured.containsKey(d.name())) {
            return true;
        }
        boolean exists;
        try {
            exists = open(d);
        } catch (SchemaException e) {
            exists = false; // no catalog table, and schema creation is off
        }
        if (!exists) {
            exists = tableExists(objects(d.name(), d.kind()).get(0));
            if (exists) {
                ensure(d);
            }
        }
        if (!exists) {
            if (missing.add(d.name())) {
                log.warn("rowqueue: queue '{}' does not exist yet: nothing to claim or read until a producer enqueues"
                        + " into it (or WorkQueue.create() creates it); check the name if this lasts. Logged once per"
                        + " queue.", d.name());
            }
            return false;
        }
        missing.remove(d.name());
        return true;
    }

    /**
     * Whether a queue's main table exists, by reading it. A missing table is the executor's mapping of an undefined
     * table; a table another node is creating at that moment can fail the read in an engine's own way instead (H2
     * reports "not found (candidates are: ...)" naming the very table, with a state of its own), so a read that
     * fails otherwise is made once more, and only a second failure (the database cannot be reached) is thrown.
     */
    private boolean tableExists(String table) {
        if (catalogReady && unlisted(table)) {
            return false; // no statement that fails: some drivers (MariaDB Connector/J) log each failure at WARN
        }
        for (int attempt = 1; ; attempt++) {
            try {
                select(table, "*", "look for table " + table);
                return true;
            } catch (SchemaException e) {
                return false;
            } catch (RuntimeException e) {
                if (attempt == 2) {
                    throw e;
                }
                log.debug("rowqueue: looking for table {} failed, looking once more: {}", table, e.toString());
            }
        }
    }

    /**
     * Whether the driver's metadata positively says a table is not there: it lists the catalog table (which exists
     * once {@link #ensureCatalog()} succeeded) in the connection's catalog and does not list this one. A driver whose
     * metadata does not list the catalog table is not trusted to tell, and the table is then read instead.
     *
     * @param table a table
     * @return {@code true} only when the metadata can be trusted and lists no such table
     */
    private boolean unlisted(String table) {
        try {
            return executor.run("look up table " + table, SqlOp.read(c -> {
                DatabaseMetaData md = c.getMetaData();
                String catalog = c.getCatalog();
                return listed(md, catalog, Dialect.CATALOG_TABLE) && !listed(md, catalog, table);
            }));
        } catch (RuntimeException e) {
            log.debug("rowqueue: cannot look up table {}: {}", table, e.getMessage());
            return false;
        }
    }

    /** Whether the metadata lists a table of that name (in the stored case), in the catalog given (null: any). */
    static boolean listed(DatabaseMetaData md, String catalog, String table) throws SQLException {
        String stored = md.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT)
                : md.storesLowerCaseIdentifiers() ? table.toLowerCase(Locale.ROOT) : table;
        try (ResultSet rs = md.getTables(catalog, null, stored, null)) {
            while (rs.next()) {
                if (table.equalsIgnoreCase(rs.getString("TABLE_NAME"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Brings a work queue of an older schema version to {@link #SCHEMA_VERSION}: version 1 had no key columns.
     * Reads the version the catalog records; below 2, looks for the key columns, and where they are missing and schema
     * creation is on, runs {@link dev.rowqueue.support.SchemaDdl#workUpgrade} (each statement may fail because another
     * node ran it first: the columns are looked for again afterwards), then records version 2. With schema creation off, a queue
     * without the columns fails with the statements to run.
     */
    private void upgradeWorkQueue(String name) {
        if (catalogVersion(name) >= SCHEMA_VERSION) {
            return;
        }
        WorkTables t = WorkTables.of(name);
        boolean present = hasColumns(t.jobs(), KEY_COLUMNS);
        if (!present && !create) {
            throw new SchemaException("work queue '" + name + "' was created with schema version "
                    + catalogVersion(name) + ", without the key columns (" + KEY_COLUMNS + "), and schema creation is"
                    + " off; run RowQueues.schema().workQueueUpgrade(\"" + name + "\") (rowqueue schema upgrade "
                    + name + ") first: " + String.join("; ", dialect.ddl().workUpgrade(t)), null);
        }
        List<DdlFailure> failures = new ArrayList<>();
        if (!present) {
            log.info("rowqueue: upgrading work queue '{}' to schema version {} (keyed jobs): adding columns {} and"
                    + " their indexes", name, SCHEMA_VERSION, KEY_COLUMNS);
            failures = createAll(dialect.ddl().workUpgrade(t));
        }
        if (!hasColumns(t.jobs(), KEY_COLUMNS)) {
            SchemaException e = new SchemaException("work queue '" + name + "' could not be upgraded to schema"
                    + " version " + SCHEMA_VERSION + ": its table " + t.jobs() + " still lacks " + KEY_COLUMNS, null);
            failures.forEach(f -> e.addSuppressed(f.error()));
            throw e;
        }
        for (DdlFailure f : failures) {
            if (WARNED.add(f.ddl())) {
                log.warn("rowqueue: an upgrade statement failed ({}): {}; the key columns exist (another node may have"
                        + " run it first), but check that its index exists (logged once per statement)", f.ddl(),
                        Errors.describe(f.error()));
            }
        }
        Sql bump = Sql.of("UPDATE " + Dialect.CATALOG_TABLE + " SET schema_version = :version WHERE queue_name = :name"
                + " AND schema_version < :version");
        executor.run("record schema version of " + name, SqlOp.statement(c -> {
            try (PreparedStatement ps = bump.prepare(c)) {
                dialect.bind(bump, ps).setInt("version", SCHEMA_VERSION).set("name", name).done();
                return ps.executeUpdate();
            }
        }));
    }

    /**
     * The tables a queue's guarantees and speed depend on, as this dialect creates them ({@link dev.rowqueue.spi.Schema}
     * rendered by {@link dev.rowqueue.support.SchemaDdl}).
     */
    List<dev.rowqueue.spi.Schema.Table> expectedTables(Definition d) {
        return switch (d.kind()) {
            case RING -> dialect.ddl().ringTables(RingTables.of(d.name()), new RingOptions(d.capacity(),
                    d.strategy()));
            case WORK -> dialect.ddl().workTables(WorkTables.of(d.name()));
            case COUNTERS -> List.of(dev.rowqueue.spi.Schema.counters(CounterTable.of(d.name())));
        };
    }

    /**
     * The key columns a schema upgrade adds without NOT NULL where the database cannot add a constrained column
     * ({@link dev.rowqueue.support.DdlFeatures#addsConstrainedColumns()}): an upgraded table may lack it.
     */
    private Set<String> relaxedColumns() {
        if (dialect.ddl().features().addsConstrainedColumns()) {
            return Set.of();
        }
        Set<String> relaxed = new HashSet<>();
        dev.rowqueue.spi.Schema.keyColumns().forEach(c -> relaxed.add(c.name().toLowerCase(Locale.ROOT)));
        return relaxed;
    }

    /**
     * Compares live tables with what this dialect creates, from the database's catalogue (JDBC metadata).
     *
     * @param tables the tables as the dialect creates them
     * @return the differences
     */
    List<SchemaDifference> differences(List<dev.rowqueue.spi.Schema.Table> tables) {
        Set<String> relaxed = relaxedColumns();
        return executor.run("check the schema of " + tables.stream().map(dev.rowqueue.spi.Schema.Table::name).toList(),
                SqlOp.read(c -> SchemaVerifier.check(c, dialect.ddl(), tables, relaxed)));
    }

    /**
     * Checks an opened queue's tables from the catalogue, once per open: a missing table or column, a wrong
     * nullability or a missing primary key fails the open, naming each and its DDL; a missing guarantee index is
     * recorded, so that the operations that need it refuse ({@link #requireGuarantees}), and logged at WARN; a missing
     * speed index is logged at WARN only. Each WARN once per object in this JVM.
     */
    private void verify(Definition d, List<DdlFailure> failures) {
        List<SchemaDifference> differences = differences(expectedTables(d));
        List<SchemaDifference> broken = differences.stream()
                .filter(x -> x.guarantee() && x.kind() != SchemaDifference.Kind.INDEX).toList();
        if (!broken.isEmpty()) {
            SchemaException e = new SchemaException(d.describe() + " '" + d.name() + "' cannot be opened: its"
                    + " tables lack what rowqueue's guarantees depend on: " + describe(broken), null);
            failures.forEach(f -> e.addSuppressed(f.error()));
            throw e;
        }
        List<SchemaDifference> missing = differences.stream()
                .filter(x -> x.guarantee() && x.kind() == SchemaDifference.Kind.INDEX).toList();
        if (missing.isEmpty()) {
            unguaranteed.remove(d.name());
        } else {
            unguaranteed.put(d.name(), missing);
            for (SchemaDifference x : missing) {
                if (WARNED.add("guarantee " + x.object())) {
                    log.warn("rowqueue: {} '{}': {}; the operations that need it are refused until it exists"
                            + " (logged once per index)", d.describe(), d.name(), x);
                }
            }
        }
        for (SchemaDifference x : differences) {
            if (!x.guarantee() && WARNED.add("speed " + x.table() + " " + x.object())) {
                log.warn("rowqueue: {} '{}': {}; it keeps working, maybe slower (logged once per index)",
                        d.describe(), d.name(), x);
            }
        }
    }

    /**
     * Fails when tables rowqueue keeps for all queues lack what their guarantees depend on (the catalog's primary key
     * registers each queue once, the fired slots' one job per slot); logs missing speed indexes at WARN.
     */
    private void requireTables(List<dev.rowqueue.spi.Schema.Table> tables, String what, List<DdlFailure> failures) {
        List<SchemaDifference> differences = differences(tables);
        List<SchemaDifference> broken = differences.stream().filter(SchemaDifference::guarantee).toList();
        if (!broken.isEmpty()) {
            SchemaException e = new SchemaException(what + " lack what rowqueue's guarantees depend on: "
                    + describe(broken), null);
            failures.forEach(f -> e.addSuppressed(f.error()));
            throw e;
        }
        for (SchemaDifference x : differences) {
            if (WARNED.add("speed " + x.table() + " " + x.object())) {
                log.warn("rowqueue: {}: {}; it keeps working, maybe slower (logged once per index)", what, x);
            }
        }
    }

    private static String describe(List<SchemaDifference> differences) {
        return String.join("; ", differences.stream().map(SchemaDifference::toString).toList());
    }

    /**
     * Refuses an operation that depends on a queue's guarantee indexes while one is missing. The catalogue is asked
     * again first (only for a queue found without one), so an index an operator created since counts at once.
     *
     * @param d         the queue
     * @param operation the operation, for the message ("unique enqueues")
     * @throws SchemaException naming each missing index and its DDL
     */
    void requireGuarantees(Definition d, String operation) {
        List<SchemaDifference> missing = unguaranteed.get(d.name());
        if (missing == null) {
            return;
        }
        // one look at the catalogue at a time per queue: while it runs, the others are refused on what the last look
        // found. Sixteen producers each reading the catalogue at once hung embedded Derby (its metadata queries are
        // stored statements, recompiled under a lock after the DROP INDEX: CI, 2026-11-29)
        if (rechecking.add(d.name())) {
            try {
                missing = differences(expectedTables(d)).stream()
                        .filter(x -> x.guarantee() && x.kind() == SchemaDifference.Kind.INDEX).toList();
                if (missing.isEmpty()) {
                    unguaranteed.remove(d.name());
                    return;
                }
                unguaranteed.put(d.name(), missing);
            } finally {
                rechecking.remove(d.name());
            }
        }
        throw new SchemaException(d.describe() + " '" + d.name() + "' refuses " + operation + ": "
                + describe(missing) + " (without it, concurrent producers could get duplicate jobs)", null);
    }

    /** The queues whose catalogue look runs now. */
    private final Set<String> rechecking = ConcurrentHashMap.newKeySet();

    /** @return the schema version the catalog records for a queue, or {@link #SCHEMA_VERSION} if it has no row */
    int catalogVersion(String name) {
        Sql sql = Sql.of("SELECT schema_version FROM " + Dialect.CATALOG_TABLE + " WHERE queue_name = :name");
        return executor.run("read the schema version of " + name, SqlOp.read(c -> {
            try (PreparedStatement ps = sql.prepare(c)) {
                dialect.bind(sql, ps).set("name", name).done();
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getInt(1) : SCHEMA_VERSION;
                }
            }
        }));
    }

    /** @return whether every table has its columns ({@link dev.rowqueue.spi.DialectPolicy#reissuesExistingSchema()}) */
    private boolean exist(Map<String, String> probes) {
        return probes.entrySet().stream().allMatch(p -> hasColumns(p.getKey(), p.getValue()));
    }

    /** @return whether a statement selecting the columns from the table succeeds */
    private boolean hasColumns(String table, String columns) {
        try {
            select(table, columns, "check columns of " + table);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Runs the dialect's probe selecting the columns from the table; throws as the executor maps its failure. */
    private void select(String table, String columns, String what) {
        String sql = dialect.probe(table, columns);
        executor.run(what, SqlOp.read(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                return rs.next();
            }
        }));
    }

    private static void check(QueueInfo q, Definition d) {
        boolean same = q.kind() == d.kind()
                && (d.kind() != QueueKind.RING || (q.capacity() == d.capacity() && q.strategy() == d.strategy()));
        if (!same) {
            throw new QueueConflictException("queue '" + d.name() + "' exists as a " + describe(q)
                    + "; it cannot be opened as a " + d.describe());
        }
    }

    private static String describe(QueueInfo q) {
        return new Definition(q.name(), q.kind(), q.capacity(), q.strategy()).describe();
    }

    private static void checkCollisions(List<QueueInfo> catalog, Definition d) {
        Set<String> mine = new HashSet<>(objects(d.name(), d.kind()));
        for (QueueInfo other : catalog) {
            for (String object : objects(other.name(), other.kind())) {
                if (mine.contains(object)) {
                    throw new QueueConflictException("queue '" + d.name() + "' needs the name " + object
                            + ", which belongs to " + describe(other) + " '" + other.name() + "'");
                }
            }
        }
    }

    void ensureCatalog() {
        if (catalogReady) {
            return;
        }
        ReentrantLock lock = creating();
        lock.lock();
        try {
            if (catalogReady) {
                return;
            }
            List<DdlFailure> failures = create && (dialect.policy().reissuesExistingSchema()
                    || !exist(Map.of(Dialect.CATALOG_TABLE, CATALOG_COLUMNS)))
                    ? createAll(dialect.ddl().catalog()) : List.of();
            probeAll(Map.of(Dialect.CATALOG_TABLE, CATALOG_COLUMNS), failures);
            requireTables(List.of(dev.rowqueue.spi.Schema.catalog()), "the catalog", failures);
            // the activity table came after the catalog: created here for new and old catalogs alike; not probed, a
            // missing one costs only the activity (its writes log once, its reads say what to run)
            boolean reissue = dialect.policy().reissuesExistingSchema();
            if (create && (reissue || !exist(Map.of(Dialect.ACTIVITY_TABLE, ACTIVITY_COLUMNS)))) {
                if (reissue || !exist(Map.of(Dialect.ACTIVITY_TABLE, ACTIVITY_V1_COLUMNS))) {
                    logFailures(createAll(dialect.ddl().activity()), List.of(Dialect.ACTIVITY_TABLE));
                }
                // a table made before the wait columns gets them (another node may add them at the same moment)
                if (!exist(Map.of(Dialect.ACTIVITY_TABLE, ACTIVITY_COLUMNS))) {
                    List<DdlFailure> upgrade = createAll(dialect.ddl().activityUpgrade());
                    if (!exist(Map.of(Dialect.ACTIVITY_TABLE, ACTIVITY_COLUMNS))) {
                        logFailures(upgrade, List.of(Dialect.ACTIVITY_TABLE));
                    }
                }
            }
            // the nodes table came later still: the same way, not probed (a missing one costs only the node views)
            if (create && (reissue || !exist(Map.of(dev.rowqueue.spi.Schema.NODES_TABLE, NODE_COLUMNS)))) {
                logFailures(createAll(dialect.ddl().nodes()), List.of(dev.rowqueue.spi.Schema.NODES_TABLE));
            }
            catalogReady = true;
        } finally {
            lock.unlock();
        }
    }

    /** The nodes table's columns, as probed. */
    static final String NODE_COLUMNS = "node_id, node_name, host, pid, started_ms, seen_ms, scheduler, runs";

    /** The schedule tables' columns, as probed. */
    static final String SCHEDULE_COLUMNS = "schedule_name, spec, queue_name, payload, job_key, missed, paused, next_ms,"
            + " last_job, revision, created_ms";
    static final String SLOT_COLUMNS = "schedule_name, slot_ms, fired_ms";
    private volatile boolean schedulesReady;

    /**
     * Makes sure the schedule tables exist: created with the catalog when schedules are first used, on a new schema or
     * an existing one (the same idempotent path as the catalog: "already exists" from another node is expected, then
     * the tables are probed).
     */
    void ensureSchedules() {
        if (schedulesReady) {
            return;
        }
        ensureCatalog();
        synchronized (this) {
            if (schedulesReady) {
                return;
            }
            Map<String, String> probes = new LinkedHashMap<>();
            probes.put(dev.rowqueue.spi.Schema.SCHEDULES_TABLE, SCHEDULE_COLUMNS);
            probes.put(dev.rowqueue.spi.Schema.SCHEDULE_SLOTS_TABLE, SLOT_COLUMNS);
            // where DDL on existing tables must not be issued again (Group Replication), look first
            List<DdlFailure> failures = create && (dialect.policy().reissuesExistingSchema() || !exist(probes))
                    ? createAll(dialect.ddl().schedules()) : List.of();
            probeAll(probes, failures);
            requireTables(List.of(dev.rowqueue.spi.Schema.schedules(), dev.rowqueue.spi.Schema.scheduleSlots()),
                    "the schedule tables", failures);
            schedulesReady = true;
        }
    }

    /**
     * @return whether both schedule tables exist with their columns (probed, nothing created); {@code true} at once
     *         once {@link #ensureSchedules()} succeeded
     */
    boolean schedulesExist() {
        if (schedulesReady) {
            return true;
        }
        Map<String, String> probes = new LinkedHashMap<>();
        probes.put(dev.rowqueue.spi.Schema.SCHEDULES_TABLE, SCHEDULE_COLUMNS);
        probes.put(dev.rowqueue.spi.Schema.SCHEDULE_SLOTS_TABLE, SLOT_COLUMNS);
        return exist(probes);
    }

    /**
     * Runs DDL statements one by one. "Already exists" (from a node that got there first) is expected; a transient
     * failure (a deadlock or lock timeout among nodes creating the same tables) is retried by the executor. Other errors
     * are collected rather than thrown: a dialect cannot always recognise another node's concurrent creation (the
     * portable dialect knows no vendor codes), so the probes that follow decide whether the schema is usable, and
     * carry these errors if it is not. They are logged once the probes have told which case it is
     * ({@link #logFailures}).
     */
    private List<DdlFailure> createAll(List<String> statements) {
        List<DdlFailure> errors = new ArrayList<>();
        for (String ddl : statements) {
            SQLException error;
            try {
                error = executor.run("create schema (" + ddl + ")", SqlOp.statement(c -> {
                    try (Statement s = c.createStatement()) {
                        s.execute(ddl);
                        return null;
                    } catch (SQLException e) {
                        SqlErrorKind kind = dialect.classify(e);
                        if (kind.transientFailure()) {
                            throw e; // a deadlock victim or lock timeout among racing creators: run it again
                        }
                        return kind == SqlErrorKind.ALREADY_EXISTS || kind == SqlErrorKind.DUPLICATE_KEY ? null : e;
                    }
                }));
            } catch (TransientRowQueueException e) {
                error = e.getCause() instanceof SQLException cause ? cause : new SQLException(e.getMessage(), e);
            }
            if (error != null) {
                errors.add(new DdlFailure(ddl, error));
            } else {
                log.debug("ran or found: {}", ddl);
            }
        }
        return errors;
    }

    /** A DDL statement that failed, and its error. */
    private record DdlFailure(String ddl, SQLException error) {
    }

    /** Probes the tables (throwing as {@link #probe(String, String)} does), then logs the DDL failures. */
    private void probeAll(Map<String, String> probes, List<DdlFailure> failures) {
        try {
            probes.forEach((table, columns) -> probe(table, columns, failures));
        } finally {
            logFailures(failures, List.copyOf(probes.keySet()));
        }
    }

    private void probe(String table, String columns, List<DdlFailure> ddlFailures) {
        try {
            probe(table, columns);
        } catch (SchemaException e) {
            ddlFailures.forEach(f -> e.addSuppressed(f.error()));
            throw e;
        }
    }

    /**
     * Logs the DDL statements that failed: at DEBUG when what the statement creates exists now (another node created
     * it at the same moment: a race that was absorbed), else at WARN, once per statement in this JVM.
     */
    private void logFailures(List<DdlFailure> failures, List<String> tables) {
        for (DdlFailure f : failures) {
            if (createdObjectExists(f.ddl(), tables)) {
                log.debug("rowqueue: DDL failed but what it creates exists (another node created it at the same"
                        + " moment) ({}): {}", f.ddl(), Errors.describe(f.error()));
            } else if (WARNED.add(f.ddl())) {
                log.warn("rowqueue: DDL failed and what it creates is missing or cannot be checked; create it"
                        + " yourself ({}): {} (logged once per statement)", f.ddl(), Errors.describe(f.error()));
            }
        }
    }

    /**
     * Asks the driver's metadata whether the table or index a DDL statement creates exists.
     *
     * @param ddl    a statement
     * @param tables the queue's tables, where an index is looked for
     * @return {@code false} also when the statement creates something else, or the metadata cannot tell
     */
    private boolean createdObjectExists(String ddl, List<String> tables) {
        Matcher m = CREATES.matcher(ddl);
        if (!m.find()) {
            return false;
        }
        boolean table = m.group(1).equalsIgnoreCase("TABLE");
        String name = m.group(2);
        try {
            return executor.run("look up " + name, SqlOp.read(c -> {
                DatabaseMetaData md = c.getMetaData();
                if (table) {
                    return listed(md, null, name);
                }
                for (String t : tables) {
                    String stored = md.storesUpperCaseIdentifiers() ? t.toUpperCase(Locale.ROOT)
                            : md.storesLowerCaseIdentifiers() ? t.toLowerCase(Locale.ROOT) : t;
                    try (ResultSet rs = md.getIndexInfo(null, null, stored, false, true)) {
                        while (rs.next()) {
                            if (name.equalsIgnoreCase(rs.getString("INDEX_NAME"))) {
                                return true;
                            }
                        }
                    }
                }
                return false;
            }));
        } catch (RuntimeException e) {
            log.debug("rowqueue: cannot look up {}: {}", name, e.getMessage());
            return false;
        }
    }

    private void probe(String table, String columns) {
        try {
            select(table, columns, "check table " + table);
        } catch (SchemaException e) {
            throw new SchemaException("table " + table + " does not exist" + (create ? ""
                    : "; schema creation is off: run the DDL from RowQueues.schema() first"), e.getCause());
        } catch (RuntimeException e) {
            throw new SchemaException("table " + table + " exists but is not a rowqueue table with columns ("
                    + columns + "): " + e.getMessage(), e.getCause());
        }
    }

    List<QueueInfo> readCatalog() {
        ensureCatalog();
        Sql sql = Sql.of("SELECT " + CATALOG_COLUMNS + " FROM " + Dialect.CATALOG_TABLE);
        List<QueueInfo> queues = executor.run("read the catalog", SqlOp.read(c -> {
            List<QueueInfo> list = new ArrayList<>();
            try (PreparedStatement ps = sql.prepare(c); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString("queue_name");
                    QueueKind kind = QueueKind.valueOf(rs.getString("kind"));
                    String strategy = rs.getString("strategy");
                    list.add(new QueueInfo(name, kind, rs.getInt("capacity"),
                            strategy == null ? null : RingStrategy.valueOf(strategy),
                            Instant.ofEpochMilli(rs.getLong("created_ms")), tables(name, kind)));
                }
            }
            return list;
        }));
        queues.sort(Comparator.comparing(QueueInfo::name));
        return queues;
    }

    private QueueInfo register(Definition d) {
        Sql insert = Sql.of("INSERT INTO " + Dialect.CATALOG_TABLE + " (" + CATALOG_COLUMNS
                + ") VALUES (:name, :kind, :capacity, :strategy, :version, " + dialect.nowMillis() + ")");
        boolean inserted = executor.run("register queue " + d.name(), SqlOp.statement(c -> {
            try (PreparedStatement ps = insert.prepare(c)) {
                dialect.bind(insert, ps).set("name", d.name()).set("kind", d.kind().name())
                        .setInt("capacity", d.capacity())
                        .set("strategy", d.strategy() == null ? null : d.strategy().name())
                        .setInt("version", SCHEMA_VERSION).done();
                return dev.rowqueue.support.Jdbc.inserted(ps, dialect);
            }
        }));
        QueueInfo info = readCatalog().stream().filter(q -> q.name().equals(d.name())).findFirst()
                .orElseThrow(() -> new SchemaException("queue " + d.name() + " vanished from the catalog", null));
        if (!inserted) {
            check(info, d); // a concurrent node registered it first: it must agree
        } else {
            log.info("rowqueue: created {} '{}'", d.describe(), d.name());
        }
        return info;
    }

    boolean drop(String name) {
        Optional<QueueInfo> info = readCatalog().stream().filter(q -> q.name().equals(name)).findFirst();
        if (info.isEmpty()) {
            return false;
        }
        for (String table : info.get().tables()) {
            String ddl = dialect.ddl().dropTable(table);
            executor.run("drop table " + table, SqlOp.statement(c -> {
                try (Statement s = c.createStatement()) {
                    s.execute(ddl);
                } catch (SQLException e) {
                    if (dialect.classify(e) != SqlErrorKind.UNDEFINED_TABLE) {
                        throw e;
                    }
                }
                return null;
            }));
        }
        Sql delete = Sql.of("DELETE FROM " + Dialect.CATALOG_TABLE + " WHERE queue_name = :name");
        executor.run("unregister queue " + name, SqlOp.statement(c -> {
            try (PreparedStatement ps = delete.prepare(c)) {
                dialect.bind(delete, ps).set("name", name).done();
                return ps.executeUpdate();
            }
        }));
        ensured.remove(name);
        unguaranteed.remove(name);
        log.info("rowqueue: dropped queue '{}'", name);
        return true;
    }
}
