package dev.rowqueue.spi;

import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.StandardActivityStore;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;
import dev.rowqueue.support.StandardCounterStore;
import dev.rowqueue.support.StandardRingStore;
import dev.rowqueue.support.StandardScheduleStore;
import dev.rowqueue.support.StandardWorkStore;
import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;
import dev.rowqueue.support.SqlForms;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What differs per database. The base class is the portable behaviour, built on standard SQL (SQL:2008
 * {@code FETCH FIRST}, SQL:2003 identity columns) and plain transactions; it is what the {@code portable} fallback
 * dialect uses as it is. A dialect module overrides only what its database does differently or better, mostly with
 * answers: its {@link DialectPolicy} ({@link #policy()}), its DDL as {@link DdlFeatures} rendered by one
 * {@link SchemaDdl} ({@link #ddl()}), its error reports ({@link #sqlErrors()}), the clock, and the stores'
 * statements.
 *
 * <p>Table and column names are the same on every database (see {@link RingTables}, {@link WorkTables},
 * {@link CounterTable}); only types, DDL syntax and statements differ.
 *
 * <p><b>Session settings.</b> A server's configuration can change how the same SQL parses or behaves: MariaDB's
 * {@code sql_mode=ORACLE} makes {@code BEGIN NOT ATOMIC} a syntax error, {@code ANSI_QUOTES} and
 * {@code PIPES_AS_CONCAT} change what quotes and {@code ||} mean, an {@code init_connect} can turn auto-commit off,
 * PostgreSQL's {@code ALTER DATABASE ... SET default_transaction_read_only = on} makes every write fail. A DBA sets
 * them server-wide or per database, so no JDBC URL shows them. Every dialect therefore names the settings its SQL
 * depends on ({@link #sessionSettings()}) and for each either
 * <ul>
 *   <li><b>pins</b> it ({@link SessionSetting.Handling#PINNED}) in {@link #prepareConnection}, once per physical
 *       connection. That is where a pin has to live: a pool may hand out a new physical connection at any borrow, and
 *       a user's {@code init_connect} or the pool's init SQL runs when the physical connection opens, before the
 *       first borrow; the core calls {@link #prepareConnection} on every borrow, and the dialect remembers, by the
 *       physical connection's identity ({@link dev.rowqueue.support.Jdbc#physicalConnection}), which it has
 *       pinned, so a borrow it has seen costs a lookup and no round trip. Pools do not reset these settings when a
 *       connection returns (HikariCP resets auto-commit, isolation, read-only, catalog, schema and network timeout
 *       only), so the pin holds for the connection's life; an application that shares the pool sees the pinned
 *       value on that connection too, and one that changes it back on a shared connection must give rowqueue a pool
 *       of its own; or</li>
 *   <li>leaves it to the core, which <b>sets it through JDBC</b> on every operation
 *       ({@link SessionSetting.Handling#SET_THROUGH_JDBC}: auto-commit, and the isolation of
 *       {@link DialectPolicy#enforceReadCommitted()}); or</li>
 *   <li><b>refuses</b> a session where it has another value ({@link SessionSetting.Handling#REFUSED_OTHERWISE}),
 *       where pinning would override what the DBA meant (a read-only default) or is impossible (a standby): the
 *       core calls {@link #checkSession} at {@code build()} on a borrowed, prepared connection, and the dialect
 *       reads the actual values from the database (never from its product name) and throws a
 *       {@link dev.rowqueue.SessionSettingException} that names the setting and its value.</li>
 * </ul>
 * A caller's own connection ({@code using(connection)}, a joined transaction) is the caller's: nothing is pinned
 * on it.
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
    public final DatabaseProduct product() {
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
    public final boolean supports(RingStrategy strategy) {
        return switch (strategy) {
            case SAFE -> true;
            case SINGLE_WRITER -> capabilities().contains(Capability.SINGLE_WRITER_RING);
            case TRIGGER -> capabilities().contains(Capability.TRIGGER_RING);
        };
    }

    /**
     * How the core runs on this database: claims at once, payload length, isolation, retries, schema reissuing.
     *
     * @return the answers; {@link DialectPolicy#DEFAULTS} by default
     */
    public DialectPolicy policy() {
        return DialectPolicy.DEFAULTS;
    }

    /**
     * The dialect refined by what the database answers at {@code build()}: called once per {@code RowQueues}
     * instance, after the dialect was chosen and before anything else uses it, holding this JVM's lock of the
     * database's schema creation (so a probe's scratch tables meet no other DDL of this JVM). A dialect that has to
     * ask the database something a single connection cannot tell (how two transactions on one row meet, which takes
     * two) asks here, on connections of its own from the data source, and returns a copy that knows; the core then
     * uses the copy ({@link #policy()}, {@link #ddl()}, ...). The default asks nothing.
     *
     * @param dataSource the instance's data source
     * @return the dialect to use: this one, or a refined copy
     * @throws SQLException from the driver, if the database cannot be asked; the instance is not built then
     */
    public Dialect refine(DataSource dataSource) throws SQLException {
        return this;
    }

    /**
     * @return the longest payload the payload columns hold, in characters ({@link DialectPolicy#maxPayloadLength()})
     */
    public final int maxPayloadLength() {
        return policy().maxPayloadLength();
    }

    /**
     * The session settings this dialect's SQL depends on, and what it does about each (see "Session settings" in
     * the class comment). The portable default: auto-commit, set through JDBC on every operation; and a connection
     * that is not read-only ({@link Connection#isReadOnly()}, refused otherwise). The portable dialect's statements
     * are standard SQL without quoted identifiers or string concatenation, and how transactions meet on the database
     * is probed at {@code build()} ({@link #refine}), not assumed from a setting.
     *
     * @return the settings, for documentation and {@code rowqueue tck}'s report
     */
    public List<SessionSetting> sessionSettings() {
        return PORTABLE_SESSION;
    }

    /** The session settings of the portable behaviour ({@link #sessionSettings()}). */
    protected static final SessionSetting AUTO_COMMIT = new SessionSetting("autocommit",
            SessionSetting.Handling.SET_THROUGH_JDBC, "on for single statements, off in transactions",
            "the core calls setAutoCommit on every operation whose mode the driver does not already report");
    /** A read-write connection ({@link #sessionSettings()}). */
    protected static final SessionSetting READ_WRITE = new SessionSetting("read-only",
            SessionSetting.Handling.REFUSED_OTHERWISE, "a read-write connection",
            "every queue operation writes");
    private static final List<SessionSetting> PORTABLE_SESSION = List.of(AUTO_COMMIT, READ_WRITE);

    /**
     * Reads, on a connection the core borrowed at {@code build()} and {@linkplain #prepareConnection prepared}, the
     * actual values of the settings this dialect refuses or pins, and throws if the session cannot run its SQL. The
     * default refuses a connection the driver reports read-only ({@link Connection#isReadOnly()}); dialects ask the
     * server for theirs (e.g. {@code SELECT @@SESSION.sql_mode}, {@code current_setting(...)}).
     *
     * @param connection a borrowed, prepared connection in auto-commit mode
     * @throws dev.rowqueue.SessionSettingException naming the setting and its value
     * @throws SQLException from the driver
     */
    public void checkSession(Connection connection) throws SQLException {
        boolean readOnly;
        try {
            readOnly = connection.isReadOnly();
        } catch (java.sql.SQLFeatureNotSupportedException e) {
            return;
        }
        if (readOnly) {
            throw READ_WRITE.refuse("true", "the data source hands out read-only connections (Connection.isReadOnly());"
                    + " give rowqueue a read-write one");
        }
    }

    /**
     * Called by the core on every connection it borrows from the data source, before the operation runs on it, so a
     * dialect can pin the session settings its statements rely on ({@link #sessionSettings()}; e.g. MariaDB's
     * {@code sql_mode}, Galera's {@code wsrep_retry_autocommit} and {@code wsrep_sync_wait}). It runs once per
     * borrowing: a dialect that needs a setting once per physical connection remembers which it has prepared, and
     * keeps the cost of a borrowing it has seen to a lookup. The default does nothing. Not called on a caller's own
     * connection ({@code using(connection)}).
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

    // ---------------------------------------------------------------- DDL

    /**
     * The renderer of this database's schema DDL. Called for every rendering; return a constant or a field, built from
     * the database's {@link DdlFeatures} (extend {@link SchemaDdl} only where rings need more than tables).
     *
     * @return the renderer; the SQL standard's with {@link ColumnTypes#STANDARD} by default
     */
    public SchemaDdl ddl() {
        SchemaDdl d = standardDdl;
        if (d == null) {
            d = new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD).payloadLength(maxPayloadLength()).build());
            standardDdl = d;
        }
        return d;
    }

    private volatile SchemaDdl standardDdl;

    /**
     * @param type a logical type
     * @return its SQL type on this database, with its length where it has one; for casts of parameters
     *         ({@link SchemaDdl#typeOf})
     */
    public final String typeOf(Schema.Type type) {
        return ddl().typeOf(type);
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
     * The ring's store: the core's, with this database's {@link #statements() statements}. Final: a dialect changes
     * what a store runs through its statement sets and their hooks, not by making a store of its own.
     *
     * @param tables  the ring's tables
     * @param options capacity and strategy; the strategy is one {@link #supports(RingStrategy)} accepts
     * @return the ring's store
     */
    public final RingStore ringStore(RingTables tables, RingOptions options) {
        RingStatements statements = statements().ring(tables, options.strategy(), nowMillis());
        if (statements == null) {
            throw new IllegalArgumentException(name() + " does not offer ring strategy " + options.strategy());
        }
        return new StandardRingStore(this, tables, options.capacity(), statements);
    }

    /**
     * The work queue's store: the core's, with this database's {@link #statements() statements} and hooks. Final, as
     * {@link #ringStore}.
     *
     * @param tables the work queue's tables
     * @return its store
     */
    public final WorkStore workStore(WorkTables tables) {
        return new StandardWorkStore(this, tables, statements().work(tables, nowMillis()));
    }

    /**
     * The counters' store: the core's, with this database's {@link #statements() statements}. Final, as
     * {@link #ringStore}.
     *
     * @param table the counters table
     * @return its store
     */
    public final CounterStore counterStore(CounterTable table) {
        return new StandardCounterStore(this, table, statements().counters(table));
    }

    /**
     * The schedule tables' store: every statement of the schedules API and the scheduler. Called once per
     * {@link dev.rowqueue.RowQueues#schedules() schedules} handle.
     *
     * @return the store; the portable {@link StandardScheduleStore} by default, standard SQL on {@link #nowMillis()}
     */
    public ScheduleStore scheduleStore() {
        return new StandardScheduleStore(this);
    }

    /**
     * The activity table's store: the statements that write and read work queues' counts per minute. Called once per
     * {@link dev.rowqueue.RowQueues} instance.
     *
     * @return the store; the portable {@link StandardActivityStore} by default
     */
    public ActivityStore activityStore() {
        return new StandardActivityStore(this);
    }

    /**
     * The database's own statements for the stores, which {@link #ringStore}, {@link #workStore} and
     * {@link #counterStore} build with: the one place a tuned dialect says what its stores run differently, in SQL
     * and, where SQL does not say enough, in the statement sets' hooks. The default is {@link StatementSets#PORTABLE}.
     *
     * @return the statement sets
     */
    protected StatementSets statements() {
        return StatementSets.PORTABLE;
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
     * How this database reports errors.
     *
     * @return the classification; {@link SqlErrors#STANDARD} (SQLState classes and JDBC exception types) by default
     */
    public SqlErrors sqlErrors() {
        return SqlErrors.STANDARD;
    }

    /**
     * @param e a driver exception
     * @return how the core should react ({@link SqlErrors#classify})
     */
    public final SqlErrorKind classify(SQLException e) {
        return sqlErrors().classify(e);
    }

    /**
     * @param e a driver exception
     * @return the SQLState rowqueue's exceptions report for it ({@link SqlErrors#sqlState}), or {@code null}
     */
    public final String sqlState(SQLException e) {
        return sqlErrors().sqlState(e);
    }

    /**
     * @param e a {@link SqlErrorKind#CONNECTION} error
     * @return whether the work surely did not run ({@link SqlErrors#failedBeforeSending})
     */
    public final boolean failedBeforeSending(SQLException e) {
        return sqlErrors().failedBeforeSending(e);
    }

    @Override
    public String toString() {
        return name() + " on " + product.describe();
    }
}
