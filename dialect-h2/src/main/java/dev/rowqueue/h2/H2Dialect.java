package dev.rowqueue.h2;

import dev.rowqueue.Capability;
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

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * H2 2.x: {@code FOR UPDATE SKIP LOCKED}, data change delta tables ({@code SELECT ... FROM FINAL TABLE (UPDATE |
 * MERGE ...)}) so a statement returns the rows it wrote, {@code MERGE} (the Oracle/DB2 "method three" of "How to
 * implement a queue in SQL", as the single-writer ring strategy) and {@code IF NOT EXISTS} DDL.
 *
 * <p>Time is bound from the application's clock: H2 evaluates a time expression once per row it scans, and an embedded
 * H2 shares the application's clock anyway. With H2 in server mode, keep the clients' clocks in sync.
 */
public class H2Dialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "h2";
    /** Payload column length: H2 holds up to a million characters in {@code CHARACTER VARYING} comfortably. */
    static final int MAX_PAYLOAD = 1_000_000;
    private static final SqlForms FORMS = SqlForms.STANDARD.withSkipLocked(SqlForms.SKIP_LOCKED);
    private static final DialectPolicy POLICY = DialectPolicy.DEFAULTS.withMaxPayloadLength(MAX_PAYLOAD);
    /**
     * Payloads are {@code CHARACTER VARYING} of {@link #MAX_PAYLOAD} characters. The safe strategy's entries have no
     * {@code (grp, seq)} index: H2 keeps a table whose primary key is not one integer column in a map by row id, with
     * the key as one more index, so a push after the first lap that changes {@code seq} would rewrite entries in two
     * indexes besides the row. Newest-first reads find their slots through the head row
     * ({@link H2Statements#ring}).
     */
    private static final SchemaDdl DDL = new SchemaDdl(DdlFeatures.builder(
                    ColumnTypes.STANDARD.with(Schema.Type.PAYLOAD, "CHARACTER VARYING(%d)"))
            .payloadLength(MAX_PAYLOAD).ifNotExists(true).ringSeqIndex(false).build());
    // H2's ErrorCode constants: CONCURRENT_UPDATE_1 (an MVStore row changed by a concurrent transaction) and
    // DEADLOCK_1; LOCK_TIMEOUT_1; TABLE_OR_VIEW_ALREADY_EXISTS_1, INDEX_ALREADY_EXISTS_1; TABLE_OR_VIEW_NOT_FOUND_1,
    // _WITH_CANDIDATES_2, _DATABASE_EMPTY_1; CONNECTION_BROKEN_1, DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN
    private static final SqlErrors ERRORS = SqlErrors.byVendorCode()
            .kind(90131, SqlErrorKind.ROLLED_BACK).kind(40001, SqlErrorKind.ROLLED_BACK)
            .kind(50200, SqlErrorKind.LOCK_TIMEOUT)
            .kind(42101, SqlErrorKind.ALREADY_EXISTS).kind(42111, SqlErrorKind.ALREADY_EXISTS)
            .kind(42102, SqlErrorKind.UNDEFINED_TABLE).kind(42103, SqlErrorKind.UNDEFINED_TABLE)
            .kind(42104, SqlErrorKind.UNDEFINED_TABLE)
            .kind(90067, SqlErrorKind.CONNECTION).kind(90098, SqlErrorKind.CONNECTION)
            .kind(90121, SqlErrorKind.CONNECTION)
            // NOT_ENOUGH_RIGHTS_FOR_1 and ADMIN_RIGHTS_REQUIRED: privilege errors whose SQLStates are their codes
            .kind(90096, SqlErrorKind.REFUSED).kind(90040, SqlErrorKind.REFUSED).build();

    /**
     * @param product an H2 2.x database
     */
    public H2Dialect(DatabaseProduct product) {
        super(product);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<Capability> capabilities() {
        return Collections.unmodifiableSet(EnumSet.of(Capability.SKIP_LOCKED, Capability.RETURNING,
                Capability.UPSERT, Capability.SINGLE_WRITER_RING));
    }

    @Override
    public DialectPolicy policy() {
        return POLICY;
    }

    @Override
    public SchemaDdl ddl() {
        return DDL;
    }

    /** {@code FOR UPDATE SKIP LOCKED}; time bound from the application's clock. */
    @Override
    public SqlForms sqlForms() {
        return FORMS;
    }

    /** The counters', rings' (safe and single-writer) and work queue's statements: {@link H2Statements}. */
    @Override
    protected StatementSets statements() {
        return H2Statements.SETS;
    }

    @Override
    public SqlErrors sqlErrors() {
        return ERRORS;
    }
}
