package dev.rowqueue.spi;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;

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
     * Whether the core must check, and if needed set, READ COMMITTED before each multi-statement transaction. The
     * check is a server round trip on some drivers. A dialect may return {@code false} if the database's default is
     * READ COMMITTED or if every statement it renders is correct at any isolation level at or above it (higher
     * levels then only cause serialization failures, which the core retries).
     *
     * @return {@code true} (the portable default)
     */
    public boolean enforceReadCommitted() {
        return true;
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
     * The current time in epoch milliseconds as an SQL expression. The default, {@code :now}, is a parameter bound
     * from {@link #clock()}: the portable dialect cannot ask an unknown database for epoch time. Dialects return an
     * expression on the database's clock, so that nodes with skewed clocks agree on due times and leases.
     *
     * @return an SQL expression of type BIGINT
     */
    public String nowMillis() {
        return ":now";
    }

    /** @return the clock for {@code :now} */
    public Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Prepares a binder and binds {@code :now} if the statement uses it.
     *
     * @param sql the statement
     * @param ps  a statement prepared from it
     * @return the binder
     * @throws SQLException from the driver
     */
    public Sql.Binder bind(Sql sql, java.sql.PreparedStatement ps) throws SQLException {
        return sql.bind(ps).setIfPresent("now", clock().millis());
    }

    /**
     * Reads a key column (a ring group or a counter key) of a result row. Keys are bound as text through
     * {@link #bind}; a dialect that stores them otherwise binds and reads them here. The default is
     * {@code getString}.
     *
     * @param rs     a result set on a row
     * @param column the column's 1-based index
     * @return the key
     * @throws SQLException from the driver
     */
    public String readKey(java.sql.ResultSet rs, int column) throws SQLException {
        return rs.getString(column);
    }

    // ---------------------------------------------------------------- types and DDL

    /** @return the type of group, key and cursor name columns */
    protected String keyType() {
        return "VARCHAR(" + KEY_LENGTH + ")";
    }

    /** @return the type of payload columns */
    protected String payloadType() {
        return "VARCHAR(" + maxPayloadLength() + ")";
    }

    /** @return the type of the error text column */
    protected String errorType() {
        return "VARCHAR(" + ERROR_LENGTH + ")";
    }

    /** @return a 64-bit integer type */
    protected String bigintType() {
        return "BIGINT";
    }

    /** @return a 32-bit integer type */
    protected String intType() {
        return "INTEGER";
    }

    /** @return a small integer type */
    protected String smallintType() {
        return "SMALLINT";
    }

    /** @return the job id column definition, generating values */
    protected String identityColumn() {
        return "BIGINT GENERATED BY DEFAULT AS IDENTITY NOT NULL";
    }

    /** @return whether {@code CREATE TABLE/INDEX IF NOT EXISTS} is available */
    protected boolean supportsIfNotExists() {
        return false;
    }

    /** @return a table-options suffix for CREATE TABLE (e.g. a storage engine), or "" */
    protected String tableSuffix() {
        return "";
    }

    /**
     * @param table   the table
     * @param columns column and constraint definitions
     * @return a CREATE TABLE statement
     */
    protected String createTable(String table, String columns) {
        return "CREATE TABLE " + (supportsIfNotExists() ? "IF NOT EXISTS " : "") + table + " (" + columns + ")"
                + tableSuffix();
    }

    /**
     * @param index   the index name
     * @param table   the table
     * @param columns the column list
     * @param unique  whether unique
     * @return a CREATE INDEX statement
     */
    protected String createIndex(String index, String table, String columns, boolean unique) {
        return "CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + (supportsIfNotExists() ? "IF NOT EXISTS " : "")
                + index + " ON " + table + " (" + columns + ")";
    }

    /**
     * @param table a table
     * @return a DROP TABLE statement, with {@code IF EXISTS} where {@link #supportsIfNotExists()}
     */
    public String dropTable(String table) {
        return "DROP TABLE " + (supportsIfNotExists() ? "IF EXISTS " : "") + table;
    }

    /** @return the catalog table's DDL */
    public List<String> catalogDdl() {
        return List.of(createTable(CATALOG_TABLE,
                "queue_name VARCHAR(64) NOT NULL, kind VARCHAR(16) NOT NULL, capacity " + intType()
                        + " NOT NULL, strategy VARCHAR(32), schema_version " + intType() + " NOT NULL, created_ms "
                        + bigintType() + " NOT NULL, PRIMARY KEY (queue_name)"));
    }

    /**
     * @param t       the ring's tables
     * @param options capacity and strategy
     * @return the ring's DDL
     */
    public List<String> ringDdl(RingTables t, RingOptions options) {
        List<String> ddl = new ArrayList<>();
        ddl.add(createTable(t.entries(), "grp " + keyType() + " NOT NULL, slot " + intType() + " NOT NULL, seq "
                + bigintType() + " NOT NULL, payload " + payloadType() + " NOT NULL, pushed_ms " + bigintType()
                + " NOT NULL, PRIMARY KEY (grp, slot)"));
        if (options.strategy() != RingStrategy.SAFE || safeRingsIndexSeq()) {
            ddl.add(createIndex(t.seqIndex(), t.entries(), "grp, seq", true));
        }
        ddl.add(createTable(t.heads(), "grp " + keyType() + " NOT NULL, last_seq " + bigintType()
                + " NOT NULL, PRIMARY KEY (grp)"));
        return ddl;
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
     * @return its DDL
     */
    public List<String> workDdl(WorkTables t) {
        List<String> ddl = new ArrayList<>();
        ddl.add(createTable(t.jobs(), "id " + identityColumn() + ", payload " + payloadType() + " NOT NULL, prio "
                + intType() + " NOT NULL, state " + smallintType() + " NOT NULL, due_ms " + bigintType()
                + " NOT NULL, attempts " + intType() + " NOT NULL, lease_token " + bigintType()
                + ", enqueued_ms " + bigintType() + " NOT NULL, last_error " + errorType()
                + ", PRIMARY KEY (id)"));
        ddl.addAll(workIndexes(t));
        ddl.add(createTable(t.cursors(), "cursor_name " + keyType() + " NOT NULL, last_id " + bigintType()
                + " NOT NULL, PRIMARY KEY (cursor_name)"));
        return List.copyOf(ddl);
    }

    /**
     * The jobs table's indexes, created after it. The default is one index on {@code (state, prio DESC, due_ms, id)}
     * that claims walk; dialects with partial or filtered indexes do better.
     *
     * @param t the work queue's tables
     * @return CREATE INDEX statements
     */
    protected List<String> workIndexes(WorkTables t) {
        return List.of(createIndex(t.claimIndex(), t.jobs(), "state, prio DESC, due_ms, id", false));
    }

    /**
     * @param t the counters table
     * @return its DDL
     */
    public List<String> counterDdl(CounterTable t) {
        return List.of(createTable(t.table(), "counter_key " + keyType() + " NOT NULL, counter_value "
                + bigintType() + " NOT NULL, PRIMARY KEY (counter_key)"));
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
    public String probe(String table, String columns) {
        return "SELECT " + columns + " FROM " + table + " WHERE 1 = 0";
    }

    // ---------------------------------------------------------------- statements

    /**
     * @param parameter the name of a parameter holding the row count
     * @return a clause limiting a query's rows, appended after ORDER BY
     */
    public String limit(String parameter) {
        return " FETCH FIRST :" + parameter + " ROWS ONLY";
    }

    /**
     * @return the clause appended to a claim's candidate query to lock the rows it returns while skipping rows
     *         locked by others; empty where there is none (the standard claim then relies on a conditional update)
     */
    public String skipLocked() {
        return "";
    }

    /**
     * The beginning of an {@code UPDATE} of one job found by its primary key (nack, release, lease extension,
     * burial), before {@code SET}. The default is {@code UPDATE <jobs>}. The WHERE clause of these statements also
     * names {@code state}, the first column of the claim index; MySQL's optimizer then estimates that index's range
     * by diving into it, and under load its head is where leases and acks are busiest (the MySQL dialect forces the
     * primary key).
     *
     * @param jobs the jobs table
     * @return {@code UPDATE} and the table reference
     */
    public String updateJobById(String jobs) {
        return "UPDATE " + jobs;
    }

    /**
     * The condition that a job found by its primary key (ack, nack, release, lease extension, burial) is live. The
     * default is {@code state = 0}. A dialect whose claim index is partial on {@code state = 0} (PostgreSQL) writes it
     * so that the planner cannot match the index's predicate: a plan made without statistics or for any parameter
     * values (a generic plan) otherwise may scan the claim index for the job instead of looking it up by key.
     *
     * @return a condition on {@code state}
     */
    public String liveJobById() {
        return "state = " + WorkTables.LIVE;
    }

    /**
     * The beginning of the {@code DELETE} of one job found by its primary key (ack), before {@code WHERE}. The
     * default is {@code DELETE FROM <jobs>}; see {@link #updateJobById}.
     *
     * @param jobs the jobs table
     * @return the statement up to its WHERE clause
     */
    public String deleteJobById(String jobs) {
        return "DELETE FROM " + jobs;
    }

    /**
     * The clauses after {@code ORDER BY} in a claim's or rotation's candidate query: limit the rows to the parameter
     * and lock them, skipping rows locked by others. The default is {@link #limit} followed by {@link #skipLocked}.
     * A database that cannot combine a row limit with {@code FOR UPDATE} (Oracle: ORA-02014) returns only its
     * locking clause, without the parameter; the store then limits the rows on the cursor instead (fetch size and
     * maximum rows), which, with {@code SKIP LOCKED}, locks only the rows fetched.
     *
     * @param parameter the name of a parameter holding the row count
     * @return the clauses, appended after ORDER BY
     */
    public String lockingLimit(String parameter) {
        return limit(parameter) + skipLocked();
    }

    /** @return the name under which the driver returns the job id as a generated key */
    public String generatedKeyColumn() {
        return "id";
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
