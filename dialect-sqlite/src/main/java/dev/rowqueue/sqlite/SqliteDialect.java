package dev.rowqueue.sqlite;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.CounterStore;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.RingStore;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.StandardCounterStore;
import dev.rowqueue.support.StandardRingStore;
import dev.rowqueue.support.StandardWorkStore;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;
import dev.rowqueue.support.SqlForms;
import org.sqlite.SQLiteConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * SQLite 3.35 and later through the xerial driver ({@code org.xerial:sqlite-jdbc}): {@code RETURNING} and
 * {@code INSERT ... ON CONFLICT ... DO UPDATE}, so a counter increment is one statement, a claim one statement after
 * a read that takes no lock, and a ring push one transaction of two (the head row's upsert returning the new number,
 * then the slot's upsert). The stores are the portable ones with these statements; see docs/sqlite.md.
 *
 * <p>SQLite runs one writer at a time per database file: a writing statement or transaction holds the database's
 * write lock until it ends. So this dialect makes writers wait for each other rather than fail:
 * <ul>
 *   <li>multi-statement transactions begin {@code IMMEDIATE} ({@link #beginTransaction}): they take the write lock
 *       at {@code BEGIN}, waiting for it up to the busy timeout. A {@code DEFERRED} transaction (the driver's default)
 *       that reads first and writes later fails with {@code SQLITE_BUSY} (in WAL mode {@code SQLITE_BUSY_SNAPSHOT})
 *       without waiting when another writer committed meanwhile;</li>
 *   <li>a connection whose busy timeout is 0 (no waiting) gets {@value #BUSY_TIMEOUT_MS} ms when rowqueue uses it
 *       ({@link #bind} and {@link #beginTransaction}; through xerial's API, where its classes are visible to this
 *       module); the driver's own default, 3,000 ms, is kept;</li>
 *   <li>claims of one work queue take turns in the JVM ({@link #claimConcurrency});</li>
 *   <li>{@code SQLITE_BUSY} and {@code SQLITE_LOCKED} that still happen are retried by the core.</li>
 * </ul>
 *
 * <p>Time is bound from the application's clock ({@code :now}), as on H2: SQLite is an embedded database, and every
 * process writing a database file runs on the machine that holds it (SQLite's locking does not work over network
 * file systems), so the application's clock is the database's.
 *
 * <p>Keys compare with SQLite's default {@code BINARY} collation: {@code 'a'}, {@code 'A'} and {@code 'a '} are
 * three keys.
 */
public class SqliteDialect extends Dialect {

    private static final SqlForms FORMS = SqlForms.STANDARD.withLimit(SqlForms.LIMIT);

    /** The dialect's name. */
    public static final String NAME = "sqlite";
    /** The oldest SQLite served: {@code RETURNING} came with 3.35.0. */
    static final int OLDEST_MAJOR = 3;
    /** The oldest SQLite's minor version. */
    static final int OLDEST_MINOR = 35;
    /** The busy timeout given to a connection that has none, in milliseconds. */
    public static final int BUSY_TIMEOUT_MS = 5_000;
    /** Payload length: SQLite's TEXT has no declared limit; a million characters, as on H2. */
    static final int MAX_PAYLOAD = 1_000_000;

    /** Whether xerial's classes are visible here (not when the driver came in a class loader of its own). */
    private static final boolean XERIAL = visible("org.sqlite.SQLiteConnection");

    /**
     * @param product SQLite 3.35 or later
     */
    public SqliteDialect(DatabaseProduct product) {
        super(product);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Capability> capabilities() {
        return Collections.unmodifiableSet(EnumSet.of(Capability.RETURNING, Capability.UPSERT));
    }

    /**
     * One claim of a work queue at a time per {@code RowQueues} instance: SQLite runs one writer at a time anyway,
     * and a claim that waits for the write lock inside SQLite sleeps in its busy handler (1, 2, 5, 10 ... 100 ms
     * steps) however soon the lock frees, while one that waits in the JVM starts when the claim before it ends and
     * runs together with the other waiting claims as one. With many claiming threads this raises throughput and
     * shortens the slowest claims; with a few it makes no difference. Payloads hold {@link #MAX_PAYLOAD} characters.
     * SQLite's transactions are serializable, and the driver accepts no other level than that and READ UNCOMMITTED
     * (it refuses READ COMMITTED): nothing to check or set.
     */
    @Override
    public DialectPolicy policy() {
        return POLICY;
    }

    private static final DialectPolicy POLICY = DialectPolicy.DEFAULTS.withClaimConcurrency(1)
            .withMaxPayloadLength(MAX_PAYLOAD).withEnforceReadCommitted(false);

    /**
     * Begins {@code IMMEDIATE}: the transaction takes the database's write lock at once, waiting for it up to the
     * connection's busy timeout, so no statement of it can fail later for a writer that committed meanwhile. The
     * driver begins a {@code DEFERRED} transaction as soon as auto-commit is off (and again after each commit, which
     * takes no lock); that empty transaction is ended and {@code BEGIN IMMEDIATE} run in its place, in plain SQL, so
     * this works with the driver in any class loader.
     */
    @Override
    public void beginTransaction(Connection connection) throws SQLException {
        withBusyTimeout(connection);
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            s.execute("COMMIT");
            s.execute("BEGIN IMMEDIATE");
        } catch (SQLException e) { // BEGIN IMMEDIATE timed out: no transaction is open
            try {
                connection.setAutoCommit(true);
            } catch (SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Binds {@code :now}, after making sure the statement's connection waits for locks (see the class comment). */
    @Override
    public Sql.Binder bind(Sql sql, PreparedStatement ps) throws SQLException {
        withBusyTimeout(ps.getConnection());
        return super.bind(sql, ps);
    }

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, SqliteDialect.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static void withBusyTimeout(Connection connection) throws SQLException {
        if (XERIAL) {
            Xerial.withBusyTimeout(connection);
        }
    }

    /** xerial's connection API, loaded only where it is visible: the busy timeout is a field there, no statement. */
    private static final class Xerial {
        static void withBusyTimeout(Connection connection) throws SQLException {
            if (connection.isWrapperFor(SQLiteConnection.class)) {
                SQLiteConnection sqlite = connection.unwrap(SQLiteConnection.class);
                if (sqlite.getBusyTimeout() <= 0) {
                    sqlite.setBusyTimeout(BUSY_TIMEOUT_MS);
                }
            }
        }
    }

    /**
     * Payloads are {@code TEXT}; the job id is {@code INTEGER PRIMARY KEY AUTOINCREMENT}, so that ids of deleted jobs
     * are never handed out again. AUTOINCREMENT exists only on a column declared INTEGER PRIMARY KEY (a table
     * constraint cannot carry it), so the jobs table declares no separate key; the sequence it continues lives in
     * {@code sqlite_sequence}, and AUTOINCREMENT continues after the greater of the largest id and its number, which
     * a restart raises (never lowers). Keyed indexes are partial (3.8.0 and later): they leave out rows without a
     * key. The safe strategy's entries have no {@code (grp, seq)} index: a push then writes the head row and one slot
     * row with its primary key, and no third b-tree. Newest-first reads with a limit find their slots through the
     * head row ({@link SqliteStatements#ring}).
     */
    @Override
    public SchemaDdl ddl() {
        return DDL;
    }

    private static final String SEQUENCE_ROW = "name = '" + DdlFeatures.JOBS + "'"; // a validated identifier
    private static final SchemaDdl DDL = new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD
                    .with(Schema.Type.PAYLOAD, "TEXT").withIdentityKey("INTEGER PRIMARY KEY AUTOINCREMENT"))
            .payloadLength(MAX_PAYLOAD).ifNotExists(true).partialIndexes(true).ringSeqIndex(false)
            .restartIdentity(List.of(
                    "UPDATE sqlite_sequence SET seq = MAX(seq, " + DdlFeatures.LAST + ") WHERE " + SEQUENCE_ROW,
                    "INSERT INTO sqlite_sequence (name, seq) SELECT '" + DdlFeatures.JOBS + "', " + DdlFeatures.LAST
                            + " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE " + SEQUENCE_ROW + ")"))
            .build());

    /** {@code LIMIT :n}; time bound from the application's clock. */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    @Override
    public RingStore ringStore(RingTables tables, RingOptions options) {
        return options.strategy() == dev.rowqueue.RingStrategy.SAFE
                ? new StandardRingStore(this, tables, options.capacity(), SqliteStatements.ring(tables, nowMillis()))
                : super.ringStore(tables, options);
    }

    @Override
    public WorkStore workStore(WorkTables tables) {
        return new StandardWorkStore(this, tables, SqliteStatements.work(tables, nowMillis()));
    }

    @Override
    public CounterStore counterStore(CounterTable table) {
        return new StandardCounterStore(this, table, SqliteStatements.counters(table));
    }

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }

    private static final SqlErrors ERRORS = new Errors();

    /**
     * SQLite's result codes, as xerial reports them: the primary code as the vendor code, no SQLState.
     * {@code SQLITE_BUSY} (5, also for {@code BUSY_SNAPSHOT}) and {@code SQLITE_LOCKED} (6) are lock waits that timed
     * out; an {@code SQLITE_CONSTRAINT} (19) on a primary key or unique index ("UNIQUE constraint failed") is a
     * duplicate key; a missing or existing table is an {@code SQLITE_ERROR} (1) told by its message.
     */
    private static final class Errors extends SqlErrors {

        /**
         * xerial reports no SQLState: one is derived from SQLite's primary result code (the vendor code) and message,
         * in the classes the other dialects' drivers use: {@code HYT00} for a lock wait that timed out, {@code 23505}
         * for a duplicate key, {@code 42S02} for a missing table, ..., {@code HY000} (general error) for the rest.
         */
        @Override
        public String sqlState(SQLException e) {
            if (e.getSQLState() != null) {
                return e.getSQLState();
            }
            String message = e.getMessage() == null ? "" : e.getMessage();
            return switch (e.getErrorCode()) {
                case 5, 6 -> "HYT00"; // SQLITE_BUSY, SQLITE_LOCKED
                case 8 -> "25006"; // SQLITE_READONLY
                case 9 -> "57014"; // SQLITE_INTERRUPT
                case 13 -> "53100"; // SQLITE_FULL
                case 19 -> message.contains("UNIQUE constraint failed") ? "23505" // SQLITE_CONSTRAINT
                        : message.contains("NOT NULL constraint failed") ? "23502"
                        : message.contains("CHECK constraint failed") ? "23514" : "23000";
                default -> switch (classifyOne(e)) {
                    case UNDEFINED_TABLE -> "42S02";
                    case ALREADY_EXISTS -> "42S01";
                    default -> "HY000";
                };
            };
        }

        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            String message = e.getMessage() == null ? "" : e.getMessage();
            switch (e.getErrorCode()) {
                case 5:
                case 6:
                    return SqlErrorKind.LOCK_TIMEOUT;
                case 19:
                    return message.contains("UNIQUE constraint failed") ? SqlErrorKind.DUPLICATE_KEY
                            : super.classifyOne(e);
                case 1:
                    if (message.contains("no such table")) {
                        return SqlErrorKind.UNDEFINED_TABLE;
                    }
                    return message.contains("already exists") ? SqlErrorKind.ALREADY_EXISTS : super.classifyOne(e);
                default:
                    return super.classifyOne(e);
            }
        }
    }
}
