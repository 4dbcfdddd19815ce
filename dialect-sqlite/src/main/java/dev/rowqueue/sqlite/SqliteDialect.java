package dev.rowqueue.sqlite;

import dev.rowqueue.Capability;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.SqlErrors;
import dev.rowqueue.support.SqlForms;
import dev.rowqueue.support.StatementSets;
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
 * SQLite 3.35 and later through the xerial driver: {@code RETURNING} and upserts, with the portable stores running
 * {@link SqliteStatements}; see docs/sqlite.md. SQLite runs one writer at a time per database file, so writers wait
 * for each other rather than fail: transactions begin {@code IMMEDIATE} ({@link #beginTransaction}); a connection
 * whose busy timeout is 0 gets {@value #BUSY_TIMEOUT_MS} ms ({@link #bind}; xerial's default, 3,000 ms, is kept);
 * claims of one work queue take turns in the JVM ({@link #policy}); {@code SQLITE_BUSY} and {@code SQLITE_LOCKED}
 * that still happen are retried. Time is bound from the application's clock, as on H2 (every process writing a file
 * runs on its machine). Keys compare with the {@code BINARY} collation: {@code 'a'}, {@code 'A'}, {@code 'a '} differ.
 */
public class SqliteDialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "sqlite";
    /** The oldest SQLite served, major and minor: {@code RETURNING} came with 3.35.0. */
    static final int OLDEST_MAJOR = 3, OLDEST_MINOR = 35;
    /** The busy timeout given to a connection that has none, in milliseconds. */
    public static final int BUSY_TIMEOUT_MS = 5_000;
    /** Payload length: SQLite's TEXT has no declared limit; a million characters, as on H2. */
    static final int MAX_PAYLOAD = 1_000_000;
    private static final SqlForms FORMS = SqlForms.STANDARD.withLimit(SqlForms.LIMIT);
    private static final DialectPolicy POLICY = DialectPolicy.DEFAULTS.withClaimConcurrency(1)
            .withMaxPayloadLength(MAX_PAYLOAD).withEnforceReadCommitted(false);
    private static final String SEQUENCE_ROW = "name = '" + DdlFeatures.JOBS + "'"; // a validated identifier
    private static final SchemaDdl DDL = new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD
                    .with(Schema.Type.PAYLOAD, "TEXT").withIdentityKey("INTEGER PRIMARY KEY AUTOINCREMENT"))
            .payloadLength(MAX_PAYLOAD).ifNotExists(true).partialIndexes(true).ringSeqIndex(false)
            .restartIdentity(List.of(
                    "UPDATE sqlite_sequence SET seq = MAX(seq, " + DdlFeatures.LAST + ") WHERE " + SEQUENCE_ROW,
                    "INSERT INTO sqlite_sequence (name, seq) SELECT '" + DdlFeatures.JOBS + "', " + DdlFeatures.LAST
                            + " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE " + SEQUENCE_ROW + ")"))
            .build());
    // xerial reports SQLite's primary result code as the vendor code, and no SQLState: BUSY (5, also BUSY_SNAPSHOT)
    // and LOCKED (6) are lock timeouts; CONSTRAINT (19) and ERROR (1) are told apart by their messages. A table
    // created since a connection read the schema is "no such table" where that connection could not take a read lock
    // within its busy timeout (rollback journal, many writers): the name lets the core look in the catalog and retry
    private static final SqlErrors ERRORS = SqlErrors.byVendorCode().kind(5, SqlErrorKind.LOCK_TIMEOUT)
            .kind(6, SqlErrorKind.LOCK_TIMEOUT).kind(19, "UNIQUE constraint failed", SqlErrorKind.DUPLICATE_KEY)
            .kind(1, "no such table", SqlErrorKind.UNDEFINED_TABLE).missingTableAfter(1, "no such table: ")
            .kind(1, "already exists", SqlErrorKind.ALREADY_EXISTS)
            .state(8, "", "25006").state(9, "", "57014").state(13, "", "53100") // READONLY, INTERRUPT, FULL
            .state(19, "NOT NULL constraint failed", "23502").state(19, "CHECK constraint failed", "23514")
            .state(19, "", "23000").otherState("HY000").build();
    /** Whether xerial's classes are visible here (not when the driver came in a class loader of its own). */
    private static final boolean XERIAL = visible("org.sqlite.SQLiteConnection");

    /** @param product SQLite 3.35 or later */
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
     * One claim of a work queue at a time per {@code RowQueues} instance (one waiting in SQLite sleeps in its busy
     * handler however soon the lock frees); payloads of {@link #MAX_PAYLOAD} characters; no isolation level is set
     * (SQLite's transactions are serializable, and the driver refuses READ COMMITTED).
     */
    @Override
    public DialectPolicy policy() {
        return POLICY;
    }

    /**
     * Begins {@code IMMEDIATE}: the write lock is taken at once (waiting up to the busy timeout), so no statement of
     * the transaction fails later for a writer that committed meanwhile. The empty {@code DEFERRED} transaction the
     * driver opens is ended and {@code BEGIN IMMEDIATE} run instead, in plain SQL (the driver in any class loader).
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
            SQLiteConnection sqlite = connection.isWrapperFor(SQLiteConnection.class)
                    ? connection.unwrap(SQLiteConnection.class) : null;
            if (sqlite != null && sqlite.getBusyTimeout() <= 0) {
                sqlite.setBusyTimeout(BUSY_TIMEOUT_MS);
            }
        }
    }

    /**
     * Payloads are TEXT; job ids INTEGER PRIMARY KEY AUTOINCREMENT: never handed out again (a restart raises, never
     * lowers, the row in sqlite_sequence). Keyed indexes are partial; ring entries have no (grp, seq) index.
     */
    @Override
    public SchemaDdl ddl() {
        return DDL;
    }

    /** {@code LIMIT :n}; time bound from the application's clock. */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    /** The counters', safe ring's and work queue's statements, newest-first ring reads through the head row. */
    @Override
    protected StatementSets statements() {
        return SqliteStatements.SETS;
    }

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }
}
