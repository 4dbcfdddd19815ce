package dev.rowqueue.oracle;

import dev.rowqueue.Capability;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
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
import java.sql.SQLException;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Oracle Database 19c and later (12.1 to 18 accepted with a warning; 23ai Free is the test image).
 *
 * <ul>
 *   <li>Types: {@code VARCHAR2(200 CHAR)} keys, compared without blank padding (binds are VARCHAR2), so
 *       {@code 'a'}, {@code 'a '} and {@code 'A'} are different keys; {@code NUMBER(19)} for 64-bit values, with
 *       CHECK constraints to the range of Java's {@code long} where SQL computes them (NUMBER(19) holds up to
 *       10<sup>19</sup>-1); payloads per {@link OraclePayload} and nullable, since Oracle stores '' as NULL.</li>
 *   <li>Identifiers: rowqueue's names are validated lower-case identifiers of at most 30 characters with their
 *       suffixes; they are never quoted, so Oracle folds them to upper case and every statement, the catalog and
 *       the probes name the same objects.</li>
 *   <li>Time: epoch milliseconds of {@code SYS_EXTRACT_UTC(SYSTIMESTAMP)}, the database's clock in UTC.</li>
 *   <li>Ring push ({@link RingStrategy#SAFE}): a PL/SQL block bumps the head row with {@code UPDATE ... RETURNING
 *       ... INTO}, creates a missing one with {@code INSERT} (ORA-00001 from a concurrent creator is handled in the
 *       block by updating the row it created) and writes the slot with {@code MERGE}: one round trip for a single
 *       payload. {@link RingStrategy#SINGLE_WRITER} is the single {@code MERGE} over a modulo slot of Baron Schwartz's
 *       "How to implement a queue in SQL".</li>
 *   <li>Claim: {@code SELECT ... ORDER BY ... FOR UPDATE SKIP LOCKED} without {@code FETCH FIRST} (ORA-02014) and
 *       without {@code ROWNUM} (applied before the skip, it returns nothing when the first row is locked): the
 *       cursor fetches only n rows (fetch size and maximum rows), and with SKIP LOCKED only fetched rows are locked;
 *       the jobs are then leased by id.</li>
 *   <li>Counters: one PL/SQL block, one round trip.</li>
 *   <li>DDL: {@code IF NOT EXISTS} from 23ai on; before, ORA-00955 (name already used) counts as "already
 *       exists". Tables are dropped with {@code PURGE} (no recycle bin copies).</li>
 * </ul>
 */
public class OracleDialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "oracle";
    /** The oldest release this dialect targets. */
    static final int TARGET_MAJOR = 19;
    /** The smallest and largest 64-bit values, as SQL literals. */
    static final String INT64_RANGE = "BETWEEN -9223372036854775808 AND 9223372036854775807";

    private static final String INT64 = "NUMBER(19)";
    /** The interval since the epoch, on the database's clock, in UTC. */
    private static final String SINCE_EPOCH = "(SYS_EXTRACT_UTC(SYSTIMESTAMP) - TIMESTAMP '1970-01-01 00:00:00')";
    /**
     * The time: epoch milliseconds of {@code SYS_EXTRACT_UTC(SYSTIMESTAMP)}, from the day-to-second interval since
     * 1970-01-01. Oracle evaluates {@code SYSTIMESTAMP} once per statement, so every use in one statement agrees.
     */
    private static final SqlForms FORMS = SqlForms.STANDARD.withSkipLocked(SqlForms.SKIP_LOCKED)
            .withLockingLimit(SqlForms.SKIP_LOCKED).withGeneratedKey("ID")
            .withNow("(EXTRACT(DAY FROM " + SINCE_EPOCH + ") * 86400000 + EXTRACT(HOUR FROM " + SINCE_EPOCH
                    + ") * 3600000 + EXTRACT(MINUTE FROM " + SINCE_EPOCH + ") * 60000 + TRUNC(EXTRACT(SECOND FROM "
                    + SINCE_EPOCH + ") * 1000))");

    private final OraclePayload payload;
    private final SchemaDdl ddl;
    private final DialectPolicy policy;

    /**
     * @param product an Oracle database, 12.1 or later
     * @param payload how payloads are stored
     */
    public OracleDialect(DatabaseProduct product, OraclePayload payload) {
        super(product);
        this.payload = payload;
        this.policy = DialectPolicy.DEFAULTS.withMaxPayloadLength(payload.maxLength());
        this.ddl = new SchemaDdl(DdlFeatures.builder(ColumnTypes.STANDARD
                        .with(Schema.Type.KEY, "VARCHAR2(%d CHAR)")
                        .with(Schema.Type.LABEL, "VARCHAR2(%d CHAR)")
                        .with(Schema.Type.ERROR_TEXT, "VARCHAR2(%d CHAR)")
                        .with(Schema.Type.PAYLOAD, payload.columnType())
                        .with(Schema.Type.INT64, INT64)
                        .with(Schema.Type.INT32, "NUMBER(10)")
                        .with(Schema.Type.INT16, "NUMBER(5)")
                        .with(Schema.Type.IDENTITY, INT64 + " GENERATED BY DEFAULT AS IDENTITY"))
                .payloadLength(payload.maxLength())
                .ifNotExists(product.majorVersion() >= 23)
                .nullablePayloads(true)
                .computedCheck(INT64_RANGE)
                .addColumn("ALTER TABLE " + DdlFeatures.TABLE + " ADD (" + DdlFeatures.COLUMN + ")")
                .dropSuffix(" PURGE")
                .restartIdentity(List.of("ALTER TABLE " + DdlFeatures.JOBS
                        + " MODIFY id GENERATED BY DEFAULT AS IDENTITY (START WITH " + DdlFeatures.NEXT + ")"))
                .build());
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The pin of {@link #prepareConnection}: keys compare byte for byte only where the session compares text in
     * binary order; {@code NLS_COMP = LINGUISTIC} with a case-insensitive {@code NLS_SORT} (set by a logon trigger,
     * or the client's environment) would make {@code 'a'} and {@code 'A'} one group, counter or cursor.
     */
    static final String PIN = "ALTER SESSION SET NLS_COMP = BINARY NLS_SORT = BINARY";

    private final dev.rowqueue.support.SessionPin pin = new dev.rowqueue.support.SessionPin(PIN);

    /**
     * {@code NLS_COMP} and {@code NLS_SORT}, pinned to {@code BINARY} ({@link #PIN}); auto-commit and READ COMMITTED
     * through JDBC; a read-only connection refused. Written without an Oracle engine here: NOT RUN.
     */
    @Override
    public List<dev.rowqueue.spi.SessionSetting> sessionSettings() {
        return List.of(AUTO_COMMIT, READ_WRITE, new dev.rowqueue.spi.SessionSetting("NLS_COMP, NLS_SORT",
                dev.rowqueue.spi.SessionSetting.Handling.PINNED, "BINARY", "keys compare byte for byte"));
    }

    /** Runs {@link #PIN} once per physical connection. */
    @Override
    public void prepareConnection(java.sql.Connection connection) throws SQLException {
        pin.apply(connection);
    }

    /** @return how payloads are stored */
    public OraclePayload payload() {
        return payload;
    }

    @Override
    public Set<Capability> capabilities() {
        return Collections.unmodifiableSet(EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING,
                Capability.UPSERT, Capability.DATABASE_CLOCK, Capability.SINGLE_WRITER_RING));
    }

    /** Payloads hold what {@link OraclePayload} says. */
    @Override
    public DialectPolicy policy() {
        return policy;
    }

    // ---------------------------------------------------------------- time

    // ---------------------------------------------------------------- types and DDL

    /**
     * {@code VARCHAR2(n CHAR)} text, {@code NUMBER(19)}, {@code NUMBER(10)} and {@code NUMBER(5)} integers, payloads
     * per {@link OraclePayload}, and an identity column of {@code NUMBER(19)}. Payloads are nullable (Oracle stores ''
     * as NULL); a 64-bit column whose values SQL computes is checked to stay in Java's {@code long} range (NUMBER(19)
     * holds up to 10<sup>19</sup>-1). {@code CREATE TABLE/INDEX IF NOT EXISTS} came with Oracle 23ai. Oracle's forms:
     * {@code ALTER TABLE t ADD (<column definition>)}, without {@code COLUMN} (a column with a default and NOT NULL
     * is added without rewriting the table, 11g and later); {@code DROP TABLE ... PURGE}, so the table is gone, not
     * kept in the recycle bin; {@code ALTER TABLE ... MODIFY id GENERATED BY DEFAULT AS IDENTITY (START WITH n)}.
     */
    @Override
    public SchemaDdl ddl() {
        return ddl;
    }

    // ---------------------------------------------------------------- statements

    /**
     * {@code FOR UPDATE SKIP LOCKED}, but no {@code FETCH FIRST} with it (ORA-02014): the store fetches only n rows
     * instead. The generated key is upper case: the driver names the column in its {@code RETURNING ... INTO}, and
     * Oracle folds to upper case.
     */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    // ---------------------------------------------------------------- stores

    /** Rings and counters in PL/SQL blocks and {@code MERGE}: {@link OracleStatements}. */
    @Override
    protected StatementSets statements() {
        return new OracleStatements(this);
    }

    // ---------------------------------------------------------------- errors

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }

    private static final SqlErrors ERRORS = new Errors();

    /**
     * Oracle's error numbers ({@link SQLException#getErrorCode()} is the ORA number).
     * <ul>
     *   <li>ORA-00060 deadlock and ORA-08177 serialization failure: Oracle undoes only the failed statement, not the
     *       transaction; {@link SqlErrorKind#LOCK_TIMEOUT} makes the core roll back before it retries. ORA-00054
     *       and ORA-30006 (resource busy) likewise.</li>
     *   <li>ORA-00001 unique constraint: {@link SqlErrorKind#DUPLICATE_KEY}, retried only where the key came from a
     *       read.</li>
     *   <li>ORA-00955 name already used, ORA-01408 column list already indexed: already exists. ORA-00942: no such
     *       table.</li>
     *   <li>ORA-01438 and ORA-01426 (value too large, numeric overflow) and ORA-02290 (check constraint: rowqueue's
     *       only check constraints keep 64-bit columns in range): numeric overflow.</li>
     *   <li>Lost sessions (ORA-03113, -03114, -03135, -01012, -01033, -01034, -01089, -01092, -02396) and the
     *       thin driver's own (17002 I/O error, 17008 closed connection, 17410 no more data): connection.</li>
     * </ul>
     */
    private static final class Errors extends SqlErrors {
        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            switch (e.getErrorCode()) {
                case 60:    // deadlock detected while waiting for resource
                case 8177:  // can't serialize access for this transaction
                case 54:    // resource busy and acquire with NOWAIT specified or timeout expired
                case 30006: // resource busy; acquire with WAIT timeout expired
                    return SqlErrorKind.LOCK_TIMEOUT;
                case 1:     // unique constraint violated
                    return SqlErrorKind.DUPLICATE_KEY;
                case 955:   // name is already used by an existing object
                case 1408:  // such column list already indexed
                    return SqlErrorKind.ALREADY_EXISTS;
                case 942:   // table or view does not exist
                    return SqlErrorKind.UNDEFINED_TABLE;
                case 1438:  // value larger than specified precision allowed for this column
                case 1426:  // numeric overflow
                case 2290:  // check constraint violated
                    return SqlErrorKind.NUMERIC_OVERFLOW;
                case 3113: case 3114: case 3135: case 1012: case 1033: case 1034: case 1089: case 1092: case 2396:
                case 17002: case 17008: case 17410:
                    return SqlErrorKind.CONNECTION;
                default:
                    return super.classifyOne(e);
            }
        }

        /**
         * Before sending: the driver's "closed connection" (17008, raised locally) and errors reaching the listener
         * (ORA-12500 to ORA-12599, a connection never opened). The base's SQLStates 08001/08003/08004 count too.
         */
        @Override
        public boolean failedBeforeSending(SQLException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ConnectException) {
                    return true;
                }
                if (t instanceof SQLException s) {
                    int code = s.getErrorCode();
                    if (code == 17008 || (code >= 12500 && code <= 12599)) {
                        return true;
                    }
                }
                if (t.getCause() == t) {
                    break;
                }
            }
            return super.failedBeforeSending(e);
        }
    }
}
