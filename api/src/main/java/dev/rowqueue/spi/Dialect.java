package dev.rowqueue.spi;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.support.SqlForms;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What differs per database. The base class is the portable behaviour, built on standard SQL (SQL:2008
 * {@code FETCH FIRST}, SQL:2003 identity columns) and plain transactions; it is what the {@code portable} fallback
 * dialect uses as it is. A dialect module overrides only what its database does differently or better: types,
 * error classification, the clock, and the stores' statements.
 *
 * <p>Table and column names are the same on every database (see {@link RingTables}, {@link WorkTables},
 * {@link CounterTable}); only types, DDL syntax and statements differ.
 */
public abstract class Dialect {

    /** The longest key (group, counter key, cursor name), in characters. */
    public static final int KEY_LENGTH = 200;
    /** The longest stored error text of a nack, in characters. */
    public static final int ERROR_LENGTH = 1000;
    /** The catalog table's name. */
    public static final String CATALOG_TABLE = "rowqueue_catalog";
    /** The table of work queues' activity per minute ({@link Schema#activity()}). */
    public static final String ACTIVITY_TABLE = "rowqueue_activity";

    /** The database this dialect instance serves. */
    protected final DatabaseProduct product;

    /**
     * @param product the database, for version gates
     */
    protected Dialect(DatabaseProduct product) {
        this.product = product;
    }

    /** @return the dialect's name, as its provider's */
    public abstract String name();

    /** @return the database this instance serves */
    public DatabaseProduct product() {
        return product;
    }

    /** @return what this dialect offers on this database version */
    public Set<Capability> capabilities() {
        return Collections.unmodifiableSet(EnumSet.noneOf(Capability.class));
    }

    /**
     * @param strategy a ring strategy
     * @return whether {@link #ringStore} accepts it
     */
    public boolean supports(RingStrategy strategy) {
        return switch (strategy) {
            case SAFE -> true;
            case SINGLE_WRITER -> capabilities().contains(Capability.SINGLE_WRITER_RING);
            case TRIGGER -> capabilities().contains(Capability.TRIGGER_RING);
        };
    }

    /**
     * How many claims of one work queue a {@code RowQueues} instance runs at once unless the builder's
     * {@code claimConcurrency} says otherwise; more claimers wait in the JVM, and those waiting run together as one
     * claim when a permit frees. A dialect whose claims slow each other down when many run together (lock and latch
     * waits at the head of the claim index), or gain from fewer and larger claims, returns a bound.
     *
     * @return at least 1; {@link Integer#MAX_VALUE} (the default) for no limit
     */
    public int claimConcurrency() {
        return Integer.MAX_VALUE;
    }

    /**
     * A bound for {@link #claimConcurrency()}: as many claims at once as this JVM has processors, at least 2.
     *
     * @return {@code max(2, availableProcessors())}
     */
    protected static int processorsAtLeastTwo() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /** @return the longest payload the payload columns hold, in characters (default 4000) */
    public int maxPayloadLength() {
        return 4000;
    }

    /**
     * Whether the core must check, and if needed set, READ COMMITTED before each multi-statement transaction on a
     * connection of its own. The level a physical connection is handed out with is read once and remembered (the
     * read is a server round trip on some drivers), so at a READ COMMITTED pool the check costs nothing after the
     * first use of each connection. A dialect may return {@code false} if every statement it renders is correct at
     * any isolation level at or above it (higher levels then only cause serialization failures, which the core
     * retries).
     *
     * @return {@code true} (the portable default)
     */
    public boolean enforceReadCommitted() {
        return true;
    }

    /**
     * Whether single statements in auto-commit mode must run at READ COMMITTED too, the way
     * {@link #enforceReadCommitted} makes transactions do: for a database where a statement at a stricter level
     * fails on rows a concurrent transaction changed (PostgreSQL's {@code 40001} at REPEATABLE READ and SERIALIZABLE)
     * where at READ COMMITTED it would wait and see the new row. At a stricter pool this costs two round trips per
     * operation (set the level, put it back); at a READ COMMITTED pool none.
     *
     * @return {@code false} (the portable default: statements keep the connection's level)
     */
    public boolean readCommittedStatements() {
        return false;
    }

    /**
     * The retry policy of a {@code RowQueues} whose builder was given none. A database whose transactions lose
     * conflicts far more often than a lock wait would (optimistic replication, where writes to one hot row from
     * several nodes abort at commit) asks for more attempts.
     *
     * @return {@link dev.rowqueue.RetryPolicy#defaults()}
     */
    public dev.rowqueue.RetryPolicy defaultRetryPolicy() {
        return dev.rowqueue.RetryPolicy.defaults();
    }

    /**
     * Whether the core issues the schema's DDL ({@code CREATE TABLE IF NOT EXISTS} and the like) every time a queue is
     * first opened in a JVM, even when its tables exist. A database where DDL replicates to other servers and can break
     * them when several run it at once (MySQL Group Replication) returns {@code false}: the core then first checks
     * that the tables exist, with the same probes it runs after creating them, and issues the DDL only for what is
     * missing.
     *
     * @return {@code true} (the portable default)
     */
    public boolean reissuesExistingSchema() {
        return true;
    }

    /**
     * Called by the core on every connection it borrows from the data source, before the operation runs on it, so a
     * dialect can give the session settings its statements rely on (e.g. MariaDB Galera's
     * {@code wsrep_retry_autocommit} and {@code wsrep_sync_wait}). It runs once per borrowing: a dialect that needs
     * a setting once per physical connection remembers which it has prepared, and keeps the cost of a borrowing it
     * has seen to a lookup. The default does nothing. Not called on a caller's own connection
     * ({@code using(connection)}).
     *
     * @param connection a connection just borrowed, in auto-commit mode or not
     * @throws SQLException from the driver; the core treats it as a failure of the operation
     */
    public void prepareConnection(java.sql.Connection connection) throws SQLException {
    }

    /**
     * Starts the transaction of a multi-statement operation on a connection in auto-commit mode: one the core
     * borrowed from the data source, or a caller's connection in auto-commit mode. The core then runs the operation,
     * ends the transaction with {@link java.sql.Connection#commit()} or {@link java.sql.Connection#rollback()} and
     * turns auto-commit back on. The default turns auto-commit off and lets the driver start the transaction. A
     * database whose default transaction takes no lock until it writes, and then may fail instead of waiting
     * (SQLite's {@code DEFERRED} transactions), starts one that takes its write lock at once.
     *
     * @param connection a connection in auto-commit mode; if this fails, it is left in auto-commit mode
     * @throws SQLException from the driver
     */
    public void beginTransaction(java.sql.Connection connection) throws SQLException {
        connection.setAutoCommit(false);
    }

    // ---------------------------------------------------------------- time

    /**
     * The pieces of SQL that differ between databases inside otherwise standard statements: the current time, the row
     * limit, the locking clause of claims, the generated key's name. The default is {@link SqlForms#STANDARD}, whose
     * time is {@code :now}, a parameter bound from {@link #clock()}: the portable dialect cannot ask an unknown
     * database for epoch time. Dialects give an expression on the database's clock, so that nodes with skewed clocks
     * agree on due times and leases. Called whenever a statement is rendered; return a constant or a field.
     *
     * @return the forms
     */
    public SqlForms sqlForms() {
        return SqlForms.STANDARD;
    }

    /**
     * The current time in epoch milliseconds as an SQL expression ({@link SqlForms#now()}).
     *
     * @return an SQL expression of type BIGINT
     */
    public final String nowMillis() {
        return sqlForms().now();
    }

    /** @return the clock for {@code :now} */
    public Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Prepares a binder, with this dialect's {@link #keyCodec()} for key parameters, and binds {@code :now} if the
     * statement uses it.
     *
     * @param sql the statement
     * @param ps  a statement prepared from it
     * @return the binder
     * @throws SQLException from the driver
     */
    public Sql.Binder bind(Sql sql, java.sql.PreparedStatement ps) throws SQLException {
        return sql.bind(ps, keyCodec()).setIfPresent("now", clock().millis());
    }

    /**
     * Reads a key column (a ring group, a counter key or a cursor name) of a result row with this dialect's
     * {@link #keyCodec()}.
     *
     * @param rs     a result set on a row
     * @param column the column's 1-based index
     * @return the key
     * @throws SQLException from the driver
     */
    public final String readKey(java.sql.ResultSet rs, int column) throws SQLException {
        return keyCodec().read(rs, column);
    }

    /**
     * Reads a key column by its label with this dialect's {@link #keyCodec()}.
     *
     * @param rs     a result set on a row
     * @param column the column's label
     * @return the key, or {@code null}
     * @throws SQLException from the driver
     */
    public final String readKey(java.sql.ResultSet rs, String column) throws SQLException {
        return keyCodec().read(rs, column);
    }

    /**
     * How keys are stored: as they are ({@link KeyCodec#TEXT}, the default), or in a form that a database comparing
     * text blank-padded or without case keeps apart.
     *
     * @return the codec
     */
    protected KeyCodec keyCodec() {
        return KeyCodec.TEXT;
    }

    // ---------------------------------------------------------------- types and DDL

    /**
     * The SQL types of this dialect's columns. Called for every rendering; return a constant or a field.
     *
     * @return the types; {@link ColumnTypes#STANDARD} by default
     */
    protected ColumnTypes columnTypes() {
        return ColumnTypes.STANDARD;
    }

    /**
     * @param type a logical type
     * @return its SQL type on this dialect, with the dialect's length ({@link #KEY_LENGTH}, {@link #maxPayloadLength()},
     *         {@link #ERROR_LENGTH}) where it has one; for casts of parameters
     */
    public String typeOf(Schema.Type type) {
        return columnTypes().render(type, lengthOf(type, 0));
    }

    private int lengthOf(Schema.Type type, int declared) {
        return switch (type) {
            case KEY -> KEY_LENGTH;
            case PAYLOAD -> maxPayloadLength();
            case ERROR_TEXT -> ERROR_LENGTH;
            default -> declared;
        };
    }

    /**
     * A column's definition in CREATE TABLE: name, SQL type and NOT NULL. A dialect adds constraints here (range
     * checks of {@linkplain Schema.Column#computed() computed} columns, say).
     *
     * @param c the column
     * @return its definition
     */
    protected String column(Schema.Column c) {
        String type = columnTypes().render(c.type(), lengthOf(c.type(), c.length()));
        return c.name() + " " + type + (c.defaultValue() == null ? "" : " DEFAULT " + c.defaultValue())
                + (c.notNull() && c.type() != Schema.Type.IDENTITY ? " NOT NULL" : "");
    }

    /** @return whether {@code CREATE TABLE/INDEX IF NOT EXISTS} is available */
    protected boolean supportsIfNotExists() {
        return false;
    }

    /**
     * The statements that create one table: its CREATE TABLE ({@link #createTable}), then a CREATE INDEX
     * ({@link #createIndex}) per index. A dialect that declares indexes inside CREATE TABLE overrides this.
     *
     * @param t the table
     * @return the statements
     */
    protected List<String> tableDdl(Schema.Table t) {
        List<String> ddl = new ArrayList<>();
        ddl.add(createTable(t));
        for (Schema.Index i : t.indexes()) {
            if (!declaredInTable(i)) {
                ddl.add(createIndex(t, i));
            }
        }
        return ddl;
    }

    /**
     * Whether an index is declared inside CREATE TABLE, as a {@code CONSTRAINT <name> UNIQUE (...)} table element,
     * instead of by its own statement. None is by default; the portable dialect declares its unique constraints there,
     * so that a new table never needs an {@code ALTER TABLE} (Derby).
     *
     * @param i a unique index of the table
     * @return whether {@link #tableElements} declares it
     */
    protected boolean declaredInTable(Schema.Index i) {
        return false;
    }

    /**
     * @param t the table
     * @return a CREATE TABLE statement of its columns, primary key (unless the identity column declares it) and
     *         checks
     */
    protected String createTable(Schema.Table t) {
        return "CREATE TABLE " + (supportsIfNotExists() ? "IF NOT EXISTS " : "") + t.name() + " (" + tableElements(t)
                + ")";
    }

    /**
     * @param t a table
     * @return its columns, primary key, checks and the unique constraints {@link #declaredInTable}, comma separated,
     *         for CREATE TABLE
     */
    protected final String tableElements(Schema.Table t) {
        List<String> parts = new ArrayList<>();
        for (Schema.Column c : t.columns()) {
            parts.add(column(c));
        }
        boolean keyDeclared = columnTypes().identityDeclaresKey()
                && t.columns().stream().anyMatch(c -> c.type() == Schema.Type.IDENTITY);
        if (!keyDeclared) {
            parts.add("PRIMARY KEY (" + String.join(", ", t.primaryKey()) + ")");
        }
        for (String check : t.checks()) {
            parts.add("CHECK (" + check + ")");
        }
        for (Schema.Index i : t.indexes()) {
            if (declaredInTable(i)) {
                parts.add("CONSTRAINT " + i.name() + " UNIQUE (" + String.join(", ", i.columns()) + ")");
            }
        }
        return String.join(", ", parts);
    }

    /**
     * @param t the table
     * @param i one of its indexes
     * @return a CREATE INDEX statement
     */
    protected String createIndex(Schema.Table t, Schema.Index i) {
        return "CREATE " + (i.unique() ? "UNIQUE " : "") + "INDEX " + (supportsIfNotExists() ? "IF NOT EXISTS " : "")
                + i.name() + " ON " + t.name() + " (" + String.join(", ", i.columns()) + ")" + indexCondition(i);
    }

    /**
     * @param i an index
     * @return its {@code WHERE} clause, or "": its own condition, and, for a {@linkplain Schema.Index#keyed() keyed}
     *         index where {@link #partialIndexes()}, that its first column is not NULL
     */
    protected final String indexCondition(Schema.Index i) {
        List<String> conditions = new ArrayList<>();
        if (i.where() != null) {
            conditions.add(i.where());
        }
        if (i.keyed() && partialIndexes()) {
            conditions.add(i.columns().get(0).replace(" DESC", "") + " IS NOT NULL");
        }
        return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
    }

    /**
     * Whether {@code CREATE INDEX ... WHERE} (partial indexes) exists. Where it does, {@linkplain Schema.Index#keyed()
     * keyed} indexes leave out rows without a key, so queues that use no keys pay nothing for them. Elsewhere they are
     * full indexes, and a unique one relies on NULLs not conflicting (SQL's rule, which every supported database but
     * Db2 follows in unique indexes; Db2 says {@code EXCLUDE NULL KEYS}).
     *
     * @return {@code false} (the portable default)
     */
    public boolean partialIndexes() {
        return false;
    }

    /**
     * @param tables tables in creation order
     * @return the statements that create them ({@link #tableDdl})
     */
    protected final List<String> create(Schema.Table... tables) {
        List<String> ddl = new ArrayList<>();
        for (Schema.Table t : tables) {
            ddl.addAll(tableDdl(t));
        }
        return List.copyOf(ddl);
    }

    /**
     * @param table a table
     * @return a DROP TABLE statement, with {@code IF EXISTS} where {@link #supportsIfNotExists()}
     */
    public String dropTable(String table) {
        return "DROP TABLE " + (supportsIfNotExists() ? "IF EXISTS " : "") + table;
    }

    /** @return the catalog table's DDL ({@link Schema#catalog()}) */
    public List<String> catalogDdl() {
        return create(Schema.catalog());
    }

    /**
     * @return the activity table's DDL ({@link Schema#activity()}), created with the catalog (and, on a database whose
     *         catalog is older than the table, when the catalog is next checked)
     */
    public List<String> activityDdl() {
        return create(Schema.activity());
    }

    /**
     * @return the DDL of the schedule tables ({@link Schema#schedules()} and {@link Schema#scheduleSlots()}), created
     *         with the catalog when schedules are first used, on new and existing schemas alike
     */
    public List<String> scheduleDdl() {
        return create(Schema.schedules(), Schema.scheduleSlots());
    }

    /**
     * @param t       the ring's tables
     * @param options capacity and strategy
     * @return the ring's DDL: {@link Schema#ringEntries} and {@link Schema#ringHeads}
     */
    public List<String> ringDdl(RingTables t, RingOptions options) {
        return create(Schema.ringEntries(t, options.strategy() != RingStrategy.SAFE || safeRingsIndexSeq()),
                Schema.ringHeads(t));
    }

    /**
     * Whether the safe strategy's entries get the unique {@code (grp, seq)} index (the single-writer and trigger
     * strategies always do: their {@code MAX(seq)} needs it). Without it a push after the first lap rewrites a slot
     * without touching a second index; a dialect that returns {@code false} must read the newest entries through the
     * head row ({@link StandardRingStore#newestByHead}), since reads ordered by {@code seq} then sort the group's rows.
     *
     * @return {@code true} (the default) to create the index
     */
    protected boolean safeRingsIndexSeq() {
        return true;
    }

    /**
     * @param t the work queue's tables
     * @return its DDL: {@link Schema#jobs} with {@link #workIndexes} and {@link Schema#cursors}
     */
    public List<String> workDdl(WorkTables t) {
        return create(Schema.jobs(t).withIndexes(workIndexes(t)), Schema.cursors(t));
    }

    /**
     * The DDL of a work queue as a schema version created it: the current one, or version 1 (without the key
     * columns and their indexes), which is what {@link #workUpgradeDdl} upgrades; for tests of that upgrade.
     *
     * @param t       the work queue's tables
     * @param version 1 or {@value Schema#VERSION}
     * @return the DDL
     */
    public List<String> workDdl(WorkTables t, int version) {
        if (version == Schema.VERSION) {
            return workDdl(t);
        }
        if (version != 1) {
            throw new IllegalArgumentException("no work queue DDL of schema version " + version);
        }
        List<String> added = Schema.keyIndexes(t).stream().map(Schema.Index::name).toList();
        List<Schema.Index> v1 = workIndexes(t).stream().filter(i -> !added.contains(i.name())).toList();
        return create(Schema.jobsVersion1(t).withIndexes(v1), Schema.cursors(t));
    }

    /**
     * @param t the work queue's tables
     * @return the indexes of its jobs table; {@link Schema#jobs}'s by default
     */
    protected List<Schema.Index> workIndexes(WorkTables t) {
        return Schema.jobs(t).indexes();
    }

    /**
     * The statements that upgrade a work queue's tables from schema version 1 to {@value Schema#VERSION}: add the
     * {@linkplain Schema#keyColumns() key columns} ({@link #addColumn}), then create the {@linkplain Schema#keyIndexes
     * key indexes} (as {@link #workIndexes} renders them). Run in order; each may fail because another node ran it
     * first, so the caller checks the result instead of the statements.
     *
     * @param t the work queue's tables
     * @return the statements
     */
    public List<String> workUpgradeDdl(WorkTables t) {
        List<String> ddl = new ArrayList<>();
        Schema.Table jobs = Schema.jobs(t).withIndexes(workIndexes(t));
        for (Schema.Column c : Schema.keyColumns()) {
            ddl.add(addColumn(jobs, c));
        }
        List<String> added = Schema.keyIndexes(t).stream().map(Schema.Index::name).toList();
        for (Schema.Index i : jobs.indexes()) {
            if (added.contains(i.name())) {
                ddl.add(createIndex(jobs, i));
            }
        }
        return List.copyOf(ddl);
    }

    /**
     * @param t a table
     * @param c a column to add to it
     * @return SQL:2003's {@code ALTER TABLE t ADD COLUMN <column definition>}
     */
    protected String addColumn(Schema.Table t, Schema.Column c) {
        return "ALTER TABLE " + t.name() + " ADD COLUMN " + column(c);
    }

    /**
     * @param t the counters table
     * @return its DDL ({@link Schema#counters})
     */
    public List<String> counterDdl(CounterTable t) {
        return create(Schema.counters(t));
    }

    /**
     * Statements that make the job id column continue at {@code nextId}, run after jobs were imported with explicit
     * ids (migration between databases). The default is SQL:2003's {@code ALTER TABLE ... ALTER COLUMN ... RESTART
     * WITH}.
     *
     * @param t      the work queue's tables
     * @param nextId the id the next enqueued job must get at least
     * @return the statements
     */
    public List<String> restartIdentity(WorkTables t, long nextId) {
        return List.of("ALTER TABLE " + t.jobs() + " ALTER COLUMN id RESTART WITH " + nextId);
    }

    /**
     * A statement that succeeds only if the table has the columns rowqueue needs; used to tell a foreign table of
     * the same name from ours.
     *
     * @param table   the table
     * @param columns its expected columns, comma separated
     * @return a statement returning no rows
     */
    public final String probe(String table, String columns) {
        return "SELECT " + columns + " FROM " + table + " WHERE 1 = 0";
    }

    // ---------------------------------------------------------------- statements

    /**
     * @param parameter the name of a parameter holding the row count
     * @return a clause limiting a query's rows, appended after ORDER BY ({@link SqlForms#limit(String)})
     */
    public final String limit(String parameter) {
        return sqlForms().limit(parameter);
    }

    /**
     * @return the clause appended to a claim's candidate query to lock the rows it returns while skipping rows
     *         locked by others, or empty ({@link SqlForms#skipLocked()})
     */
    public final String skipLocked() {
        return sqlForms().skipLocked();
    }

    /**
     * @param parameter the name of a parameter holding the row count
     * @return the clauses after {@code ORDER BY} in a claim's or rotation's candidate query that limit its rows and
     *         lock them ({@link SqlForms#lockingLimit(String)})
     */
    public final String lockingLimit(String parameter) {
        return sqlForms().lockingLimit(parameter);
    }

    /** @return the name under which the driver returns the job id as a generated key ({@link SqlForms#generatedKey()}) */
    public final String generatedKeyColumn() {
        return sqlForms().generatedKey();
    }

    // ---------------------------------------------------------------- stores

    /**
     * @param tables  the ring's tables
     * @param options capacity and strategy; the strategy is one {@link #supports(RingStrategy)} accepts
     * @return the ring's store
     */
    public RingStore ringStore(RingTables tables, RingOptions options) {
        if (options.strategy() != RingStrategy.SAFE) {
            throw new IllegalArgumentException(name() + " does not offer ring strategy " + options.strategy());
        }
        return new StandardRingStore(this, tables, options.capacity());
    }

    /**
     * @param tables the work queue's tables
     * @return its store
     */
    public WorkStore workStore(WorkTables tables) {
        return new StandardWorkStore(this, tables);
    }

    /**
     * @param table the counters table
     * @return its store
     */
    public CounterStore counterStore(CounterTable table) {
        return new StandardCounterStore(this, table);
    }

    /**
     * A source of wake-ups for blocking claims, if the database can signal new work. The default is none: blocking
     * claims poll with a backoff up to {@code pollInterval}. Called once per {@link dev.rowqueue.RowQueues}
     * instance, which closes the source; a source should connect lazily, on its first ticket.
     *
     * @param dataSource   the instance's data source
     * @param pollInterval the builder's poll interval, for a source that has to fall back to polling
     * @return the source, or empty to poll
     */
    public Optional<WakeupSource> wakeupSource(DataSource dataSource, Duration pollInterval) {
        return Optional.empty();
    }

    // ---------------------------------------------------------------- errors

    /**
     * Classifies a driver exception by SQLState (SQL standard classes and common vendor states) and by the JDBC
     * exception subclass, looking through batch and chained exceptions. Dialects refine it with vendor codes.
     *
     * @param e the exception
     * @return how the core should react
     */
    public SqlErrorKind classify(SQLException e) {
        for (SQLException x = e; x != null; x = next(x)) {
            SqlErrorKind kind = classifyOne(x);
            if (kind != SqlErrorKind.OTHER) {
                return kind;
            }
        }
        return SqlErrorKind.OTHER;
    }

    /**
     * The SQLState that rowqueue's exceptions ({@link dev.rowqueue.RowQueueException#sqlState()}) report for a
     * driver exception. The default is the driver's own. A dialect whose driver reports none (SQLite's xerial driver)
     * derives a standard one from the vendor code; the core then hands the driver's exception on as the cause of an
     * {@link SQLException} that carries the derived state, message and vendor code.
     *
     * @param e a driver exception
     * @return its SQLState, or {@code null}
     */
    public String sqlState(SQLException e) {
        return e.getSQLState();
    }

    private static SQLException next(SQLException x) {
        if (x.getNextException() != null && x.getNextException() != x) {
            return x.getNextException();
        }
        return x.getCause() instanceof SQLException s && s != x ? s : null;
    }

    /**
     * Classifies one exception of a chain; override to add vendor codes, and fall back to {@code super}.
     *
     * @param e one exception
     * @return its kind, or {@link SqlErrorKind#OTHER}
     */
    protected SqlErrorKind classifyOne(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("40")) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (state.startsWith("08")) {
            return SqlErrorKind.CONNECTION;
        }
        switch (state) {
            case "23505":
                return SqlErrorKind.DUPLICATE_KEY;
            case "22003":
                return SqlErrorKind.NUMERIC_OVERFLOW;
            case "42P07": case "42S01": case "42S11":
                return SqlErrorKind.ALREADY_EXISTS;
            case "42P01": case "42S02":
                return SqlErrorKind.UNDEFINED_TABLE;
            case "55P03": case "HYT00":
                return SqlErrorKind.LOCK_TIMEOUT;
            case "25006": // read-only SQL-transaction: a hot standby, a read-only replica or transaction
                return SqlErrorKind.READ_ONLY;
            default:
                break;
        }
        if (e instanceof SQLTransactionRollbackException) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException) {
            return SqlErrorKind.CONNECTION;
        }
        if (e instanceof SQLTimeoutException) {
            return SqlErrorKind.LOCK_TIMEOUT;
        }
        return SqlErrorKind.OTHER;
    }

    /**
     * Whether a connection error proves the statement never reached the server (so even a non-idempotent
     * auto-commit statement may be retried). The default recognises "connection does not exist" (08003) and
     * "unable to connect" (08001, 08004).
     *
     * @param e a {@link SqlErrorKind#CONNECTION} error
     * @return {@code true} if the work surely did not run
     */
    public boolean failedBeforeSending(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.equals("08003") || state.equals("08001") || state.equals("08004");
    }

    @Override
    public String toString() {
        return name() + " on " + product.describe();
    }
}
