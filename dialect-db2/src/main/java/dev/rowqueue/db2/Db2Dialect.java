package dev.rowqueue.db2;

import dev.rowqueue.Capability;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.KeyCodec;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;

import dev.rowqueue.support.SqlForms;
import dev.rowqueue.support.StatementSets;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * IBM Db2 for Linux, UNIX and Windows, 11.5 and 12.1 (11.1 accepted with a warning), in a Unicode database (the
 * default since 9.5).
 *
 * <ul>
 *   <li>Keys are UTF-8 bytes in {@code VARCHAR(601) FOR BIT DATA} columns, with a marker byte after a trailing
 *       blank (see {@link Db2Keys}): Db2 compares character strings blank-padded, which would make {@code 'a'} and
 *       {@code 'a '} one key. Payloads are {@code VARCHAR(30000 OCTETS)}, every 10,000-character text fits.</li>
 *   <li>Time: epoch milliseconds of {@code CURRENT TIMESTAMP - CURRENT TIMEZONE}: {@code CURRENT TIMESTAMP} is the
 *       server's local time, and subtracting the server's offset from UTC gives UTC.</li>
 *   <li>Data change table references return what a statement wrote: {@code SELECT ... FROM FINAL TABLE (UPDATE
 *       ...)} bumps a ring's head row and increments counters; {@code FROM OLD TABLE (DELETE ...)} acks.</li>
 *   <li>Claims: {@code SELECT ... FROM FINAL TABLE (UPDATE (SELECT ... ORDER BY ... FETCH FIRST n ROWS ONLY) SET
 *       ...) SKIP LOCKED DATA}, one statement at cursor stability (SKIP LOCKED DATA is ignored under RR and UR;
 *       the clause is not allowed inside the subselect).</li>
 *   <li>SQLCODE -911 (40001, the unit of work was rolled back) is retried; -913 (57033, deadlock or timeout, not
 *       rolled back) is rolled back by the core first, then retried.</li>
 * </ul>
 */
public class Db2Dialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "db2";
    /** Payload length in characters: at most 3 UTF-8 bytes per Java {@code char}, 30,000 bytes. */
    static final int MAX_PAYLOAD = 10_000;
    private static final DialectPolicy POLICY = DialectPolicy.DEFAULTS.withMaxPayloadLength(MAX_PAYLOAD);
    private static final SchemaDdl DDL = new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD
                    .with(Schema.Type.KEY, Db2Keys.COLUMN_TYPE)
                    .with(Schema.Type.PAYLOAD, "VARCHAR(" + 3 * MAX_PAYLOAD + " OCTETS)")
                    .with(Schema.Type.ERROR_TEXT, "VARCHAR(" + 3 * ERROR_LENGTH + " OCTETS)"))
            .payloadLength(MAX_PAYLOAD).keyedIndexSuffix(" EXCLUDE NULL KEYS").build());
    private static final SqlErrors ERRORS = new Errors();

    /**
     * @param product a Db2 LUW database, 11.1 or later
     */
    public Db2Dialect(DatabaseProduct product) {
        super(product);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Capability> capabilities() {
        return Collections.unmodifiableSet(EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING,
                Capability.UPSERT, Capability.DATABASE_CLOCK, Capability.SINGLE_WRITER_RING));
    }

    @Override
    public DialectPolicy policy() {
        return POLICY;
    }

    // ---------------------------------------------------------------- time

    /**
     * Epoch milliseconds of the server's clock in UTC: days since 1970-01-01 ({@code DAYS} counts from 0001-01-01,
     * where it is 1; 1970-01-01 is day 719163), seconds since midnight and microseconds. Db2 reads the clock once
     * per statement, so every {@code CURRENT TIMESTAMP} in one statement agrees.
     */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    private static final String UTC = "CURRENT TIMESTAMP - CURRENT TIMEZONE";
    private static final SqlForms FORMS = SqlForms.STANDARD.withNow("(CAST(DAYS(" + UTC + ") - 719163 AS BIGINT)"
            + " * 86400000 + MIDNIGHT_SECONDS(" + UTC + ") * 1000 + MICROSECOND(CURRENT TIMESTAMP) / 1000)");

    // ---------------------------------------------------------------- types and DDL

    /**
     * Keys as bytes ({@link Db2Keys#COLUMN_TYPE}); payloads and error texts in explicit OCTETS, so a database whose
     * default string unit is CODEUNITS32 does not change the limit. A {@linkplain Schema.Index#keyed() keyed} index
     * says {@code EXCLUDE NULL KEYS} (Db2 10.5 and later): Db2's unique indexes otherwise treat NULLs as equal, which
     * would allow one job without a unique key, and rows whose index columns are all NULL stay out of the index.
     */
    @Override
    public SchemaDdl ddl() {
        return DDL;
    }

    // ---------------------------------------------------------------- binding

    /** Keys are stored as bytes ({@link Db2Keys}). */
    @Override
    protected KeyCodec keyCodec() {
        return dev.rowqueue.support.KeyBytes.CODEC;
    }

    // ---------------------------------------------------------------- stores

    /** Work queues, rings and counters through {@code FINAL TABLE} and {@code MERGE}: {@link Db2Statements}. */
    @Override
    protected StatementSets statements() {
        return new Db2Statements(this);
    }

    // ---------------------------------------------------------------- errors

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }

    /**
     * Db2's SQLCODEs ({@link SQLException#getErrorCode()} with the JCC driver).
     * <ul>
     *   <li>-911 (40001): deadlock or timeout, the unit of work was rolled back: {@link SqlErrorKind#ROLLED_BACK}.
     *   </li>
     *   <li>-913 (57033): deadlock or timeout, nothing rolled back: {@link SqlErrorKind#LOCK_TIMEOUT}, so the core
     *       rolls back before it retries.</li>
     *   <li>-803 (23505) duplicate key; -601 (42710) name already exists; -204 (42704) undefined name; -802 and
     *       -413 (22003) overflow.</li>
     *   <li>-4499 and -30081 (communication errors): connection.</li>
     * </ul>
     */
    private static final class Errors extends SqlErrors {
        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            switch (e.getErrorCode()) {
                case -911:
                    return SqlErrorKind.ROLLED_BACK;
                case -913:
                    return SqlErrorKind.LOCK_TIMEOUT;
                case -803:
                    return SqlErrorKind.DUPLICATE_KEY;
                case -601:
                    return SqlErrorKind.ALREADY_EXISTS;
                case -204:
                    return SqlErrorKind.UNDEFINED_TABLE;
                case -802:
                case -413:
                    return SqlErrorKind.NUMERIC_OVERFLOW;
                case -4499:
                case -30081:
                    return SqlErrorKind.CONNECTION;
                default:
                    return super.classifyOne(e);
            }
        }

        /**
         * JCC reports a refused connection and a socket broken mid-statement alike (SQLCODE -4499, SQLSTATE 08001), so
         * the SQLState alone does not prove the work never reached the server. Only a connection that could not be
         * opened (a {@link ConnectException} or {@link UnknownHostException} cause) or was already closed (08003)
         * counts as "before sending".
         */
        @Override
        public boolean failedBeforeSending(SQLException e) {
            for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
                if (t instanceof ConnectException || t instanceof UnknownHostException) {
                    return true;
                }
            }
            return "08003".equals(e.getSQLState());
        }
    }
}
