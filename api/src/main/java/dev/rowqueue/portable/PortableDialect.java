package dev.rowqueue.portable;

import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectPolicy;
import dev.rowqueue.spi.DialectProvider;
import dev.rowqueue.spi.KeyCodec;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.DdlFeatures;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.support.KeyBytes;
import dev.rowqueue.support.SchemaDdl;
import dev.rowqueue.support.SqlErrors;
import dev.rowqueue.support.SqlForms;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;
import dev.rowqueue.support.WorkStatements;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The fallback dialect: standard SQL and transactions only (the "fourth method" of "How to implement a queue in
 * SQL"), for databases no dialect module serves. It asks the database what it accepts, once, with the probes of
 * {@link PortableFeatures}: the identity column syntax, the row limit clause, whether time parameters need a
 * cast, descending index columns, whether text compares exactly, {@code IF NOT EXISTS}, and how duplicate keys,
 * existing objects and missing tables are reported. It needs savepoints and row locks taken by {@code UPDATE}; it
 * takes time from the application's clock, so keep the clocks of nodes sharing a queue in sync. It is used, with a
 * logged warning, when detection finds no dialect, and can be forced with {@code builder.dialect("portable")}. At
 * {@code build()} it asks more, on connections of its own ({@link #refine}): how two transactions on one row meet,
 * and how a column is added.
 */
public final class PortableDialect extends Dialect {
    private static final Logger log = LoggerFactory.getLogger(PortableDialect.class);

    /** The dialect's name. */
    public static final String NAME = "portable";
    /** Appended to a key that ends in a blank or in itself, where keys are {@link PortableFeatures.KeyForm#MARKED}. */
    public static final char KEY_MARKER = '~';

    private final PortableFeatures features;
    private final PortableFeatures.Concurrency concurrency;
    private final SchemaDdl ddl;
    private final DialectPolicy policy;
    private final SqlErrors errors;
    private final KeyCodec keys;
    /** What follows {@code ALTER TABLE t} to add a column ({@link #withAddColumn}). */
    private final String addKeyword;
    /** Whether an added column keeps its {@code NOT NULL}, or {@code null}: as the features say. */
    private final Boolean addsConstrained;
    /** Whether a second writer of a row was found to fail instead of waiting ({@link HotRowProbe}). */
    private final boolean hotRowConflicts;

    /**
     * A dialect for a database that answered no probes: it assumes the SQL standard
     * ({@link PortableFeatures#STANDARD}).
     *
     * @param product the database
     */
    public PortableDialect(DatabaseProduct product) {
        this(product, PortableFeatures.STANDARD);
    }

    /**
     * @param product  the database
     * @param features what the database accepts ({@link PortableFeatures#probe})
     */
    public PortableDialect(DatabaseProduct product, PortableFeatures features) {
        this(product, features, PortableFeatures.Concurrency.UNKNOWN);
    }

    /**
     * @param product     the database
     * @param features    what the database accepts ({@link PortableFeatures#of})
     * @param concurrency how two transactions on one row meet there ({@link PortableFeatures#concurrency})
     */
    public PortableDialect(DatabaseProduct product, PortableFeatures features,
                           PortableFeatures.Concurrency concurrency) {
        this(product, features, concurrency, "ADD COLUMN", null, false);
    }

    private PortableDialect(DatabaseProduct product, PortableFeatures features,
                            PortableFeatures.Concurrency concurrency, String addKeyword, Boolean addsConstrained,
                            boolean hotRowConflicts) {
        super(product);
        this.addKeyword = addKeyword;
        this.addsConstrained = addsConstrained;
        this.hotRowConflicts = hotRowConflicts;
        this.features = features;
        this.concurrency = java.util.Objects.requireNonNull(concurrency, "concurrency");
        this.keys = switch (features.keyForm()) {
            case EXACT -> KeyCodec.TEXT;
            case MARKED -> MARKED;
            case BYTES -> KeyBytes.CODEC;
            case HEX -> HEX;
        };
        ColumnTypes t = ColumnTypes.STANDARD.with(Schema.Type.KEY, features.keyType())
                .with(Schema.Type.PAYLOAD, features.textType()).with(Schema.Type.ERROR_TEXT, features.textType());
        ColumnTypes types = features.identityIsKey() ? t.withIdentityKey(features.identity())
                : t.with(Schema.Type.IDENTITY, features.identity());
        this.ddl = new SchemaDdl(ddlFeatures(features, types, addKeyword,
                addsConstrained != null ? addsConstrained : features.addsConstrainedColumns()));
        dev.rowqueue.RetryPolicy d = dev.rowqueue.RetryPolicy.defaults();
        this.policy = DialectPolicy.DEFAULTS.withClaimConcurrency(1).withRetryPolicy(concurrency.writeConflict() == null
                ? d : new dev.rowqueue.RetryPolicy(CONFLICT_ATTEMPTS, d.initialBackoff(), d.maxBackoff()))
                .withSharedClaimGates(concurrency.readsWaitForWriters()).withHotRowTurns(hotRowConflicts);
        this.errors = new Errors(features, concurrency);
    }

    /**
     * The DDL of what was found. Where ids come from a sequence ({@link PortableFeatures#sequence()}), a table with
     * the id column is created after its sequence, named after the table ({@link WorkTables#sequence()}: the jobs
     * table is named like its queue); a sequence that exists already (another node created it, or a dropped queue of
     * the same name left it) counts as created. Where a unique index would allow only one NULL
     * ({@link PortableFeatures#uniqueIndexNulls()} false: Derby), a unique keyed index is a UNIQUE constraint
     * declared in the CREATE TABLE (a table being created is locked by its creator alone; an {@code ALTER TABLE} of a
     * new table raced the other nodes' index creation on Derby), added by {@code ALTER TABLE ... ADD CONSTRAINT} in
     * an upgrade. Without descending index columns, the claim index is ascending (claims then sort their
     * candidates). Where {@code ADD COLUMN} takes no constraint, the column is added with its default only. The
     * identity restarts with its sequence, not at all where it moves past explicitly inserted ids by itself, or by
     * SQL:2003's {@code ALTER COLUMN ... RESTART WITH}.
     */
    private static DdlFeatures ddlFeatures(PortableFeatures features, ColumnTypes types, String addKeyword,
                                           boolean addsConstrained) {
        List<String> restart = features.sequence() == null
                ? features.identityFollows() ? List.of() : DdlFeatures.RESTART_IDENTITY
                : features.sequenceRestarts()
                ? List.of("ALTER SEQUENCE " + DdlFeatures.SEQUENCE + " RESTART WITH " + DdlFeatures.NEXT)
                : recreateSequence(features.identity().replace(PortableFeatures.SEQUENCE, DdlFeatures.SEQUENCE));
        return DdlFeatures.builder(types)
                .payloadLength(DialectPolicy.DEFAULTS.maxPayloadLength())
                .ifNotExists(features.ifNotExists())
                .descendingIndexes(features.descendingIndexes())
                .uniqueKeyedAsConstraint(!features.uniqueIndexNulls())
                .addColumn("ALTER TABLE " + DdlFeatures.TABLE + " " + addKeyword + " " + DdlFeatures.COLUMN)
                .addsConstrainedColumns(addsConstrained)
                .sequence(features.sequence() == null ? null
                        : features.sequence().replace(PortableFeatures.SEQUENCE, DdlFeatures.SEQUENCE))
                .restartIdentity(restart)
                .build();
    }

    /**
     * Where a sequence cannot be restarted: the id column's default is dropped (the sequence then has no dependent),
     * the sequence dropped and created again starting at the next id, and the default set again, as the identity
     * declared it. Enqueues between the first and the last statement fail (no id); imports run before the queue is
     * used.
     */
    private static List<String> recreateSequence(String identity) {
        int from = identity.indexOf("DEFAULT ") + "DEFAULT ".length();
        int to = identity.lastIndexOf(" NOT NULL");
        String value = identity.substring(from, to < from ? identity.length() : to);
        return List.of("ALTER TABLE " + DdlFeatures.JOBS + " ALTER COLUMN id DROP DEFAULT",
                "DROP SEQUENCE " + DdlFeatures.SEQUENCE,
                "CREATE SEQUENCE " + DdlFeatures.SEQUENCE + " START WITH " + DdlFeatures.NEXT,
                "ALTER TABLE " + DdlFeatures.JOBS + " ALTER COLUMN id SET DEFAULT " + value);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** @return what the database was found to accept */
    public PortableFeatures features() {
        return features;
    }

    /** @return how two transactions on one row were found to meet */
    public PortableFeatures.Concurrency concurrency() {
        return concurrency;
    }

    /**
     * @param found how two transactions on one row meet ({@link PortableFeatures#concurrency})
     * @return this dialect, knowing it
     */
    public PortableDialect withConcurrency(PortableFeatures.Concurrency found) {
        return new PortableDialect(product(), features, found, addKeyword, addsConstrained, hotRowConflicts);
    }

    /**
     * @param keyword     what follows {@code ALTER TABLE t} to add a column, as the database was found to accept it:
     *                    {@code ADD COLUMN} (SQL:2003) or {@code ADD}
     * @param constrained whether a column with a default and {@code NOT NULL} can be added that way
     * @return this dialect, adding columns that way in schema upgrades
     */
    public PortableDialect withAddColumn(String keyword, boolean constrained) {
        return new PortableDialect(product(), features, concurrency, keyword, constrained, hotRowConflicts);
    }

    /**
     * Asks the database, on connections of its own and once per database in this JVM, how two transactions on one
     * row meet ({@link PortableFeatures#concurrency}: reads waiting for writers make the instances on the database
     * share their claim gates, {@link DialectPolicy#sharedClaimGates()}), how a schema upgrade adds a column
     * ({@link #withAddColumn}), and whether a second writer of a row fails instead of waiting (then writers of one
     * hot row take turns in this JVM, {@link DialectPolicy#hotRowTurns()}). A probe that cannot run leaves its
     * answer as it was; where no connection can be had to tell the database, nothing is asked.
     */
    @Override
    public Dialect refine(DataSource dataSource) {
        String database;
        try (Connection c = dataSource.getConnection()) {
            database = Jdbc.databaseIdentity(c.getMetaData());
        } catch (SQLException e) {
            log.debug("rowqueue: could not tell the database to probe it: {}", e.toString());
            return this;
        }
        PortableFeatures.Concurrency found = PortableFeatures.concurrency(dataSource, database);
        AddColumnProbe.Answer add = AddColumnProbe.of(dataSource, database);
        HotRowProbe.Answer hot = HotRowProbe.of(dataSource, database);
        log.debug("rowqueue: {}{}", hot, hot.conflicts() ? ": writers of one hot row take turns in this JVM" : "");
        return new PortableDialect(product(), features, found, add == null ? addKeyword : add.keyword(),
                add == null ? addsConstrained : Boolean.valueOf(add.constrained()), hot.conflicts());
    }

    /** Attempts of an operation where a second writer of a row fails instead of waiting ({@link #policy()}). */
    static final int CONFLICT_ATTEMPTS = 32;

    /**
     * One claim of a work queue at a time per instance: claims that wait run together as one when the claim before
     * them ends. On databases whose reads take locks (Derby, HSQLDB's default) consumers that ack and claim at once
     * otherwise wait for each other in cycles, and on SQLite every writer waits for one lock anyway. Where a second
     * writer of a row fails at once instead of waiting ({@link PortableFeatures.Concurrency#writeConflict}),
     * producers and consumers of one hot row (a ring's head, a counter, a claim gate) take turns by retrying: many
     * more attempts ({@value #CONFLICT_ATTEMPTS}), each after a pause with jitter that doubles up to half a second.
     */
    @Override
    public DialectPolicy policy() {
        return policy;
    }

    /** The probed forms: the time as a parameter (cast where the engine needs it), the row limit, the generated key. */
    @Override
    public SqlForms sqlForms() {
        return new SqlForms(features.castParameters() ? "CAST(:now AS BIGINT)" : ":now", switch (features.limit()) {
            case FETCH_FIRST -> SqlForms.STANDARD.limit();
            case LIMIT -> SqlForms.LIMIT;
            case MAX_ROWS -> "";
        }, "", null, features.generatedKey());
    }

    @Override
    protected KeyCodec keyCodec() {
        return keys;
    }

    @Override
    public SchemaDdl ddl() {
        return ddl;
    }

    /**
     * Claims write before they read: a claim's and a keyed enqueue's first statement is an {@code UPDATE} of no row
     * ({@link WorkStatements#writeFirst}), so a database that takes one write lock per transaction at its first write
     * (SQLite) makes the claim wait for that lock, with its busy timeout, before the claim reads its candidates; a
     * transaction that read first and then wants to write may instead fail at once when another writer committed in
     * between. Elsewhere the statement changes nothing and costs a round trip. Rotations lock their cursor's row first.
     */
    @Override
    protected StatementSets statements() {
        return new StatementSets() {
            @Override
            public WorkStatements work(WorkTables tables, String now) {
                return WorkStatements.PORTABLE.withWriteFirst(
                        Sql.of("UPDATE " + tables.jobs() + " SET attempts = attempts WHERE id = -1"));
            }
        };
    }

    @Override
    public SqlErrors sqlErrors() {
        return errors;
    }

    /** The probed reports of duplicate keys, existing objects and missing tables, then the standard rules. */
    private static final class Errors extends SqlErrors {
        private final PortableFeatures features;
        private final PortableFeatures.Concurrency concurrency;

        Errors(PortableFeatures features, PortableFeatures.Concurrency concurrency) {
            this.features = features;
            this.concurrency = concurrency;
        }

        @Override
        protected SqlErrorKind classifyOne(SQLException e) {
            if (features.duplicateKey() != null && features.duplicateKey().matches(e)) {
                return SqlErrorKind.DUPLICATE_KEY;
            }
            if (features.alreadyExists() != null && features.alreadyExists().matches(e)) {
                return SqlErrorKind.ALREADY_EXISTS;
            }
            if (features.undefinedTable() != null && features.undefinedTable().matches(e)) {
                return SqlErrorKind.UNDEFINED_TABLE;
            }
            if (concurrency.writeConflict() != null && concurrency.writeConflict().matches(e)) {
                return SqlErrorKind.ROLLED_BACK;
            }
            return super.classifyOne(e);
        }

        /** The name in the probed report of a missing table, where the database reports it by its message. */
        @Override
        public String missingTable(SQLException e) {
            return features.undefinedTable() == null ? null : features.undefinedTable().name(e);
        }

        /**
         * The driver's SQLState; where it reports none, the standard one of what the probed reports recognise: a
         * duplicate key {@code 23505}, an existing table {@code 42S01}, a missing table {@code 42S02}, a write-write
         * conflict {@code 40001}.
         */
        @Override
        public String sqlState(SQLException e) {
            if (e.getSQLState() != null && !e.getSQLState().isEmpty()) {
                return e.getSQLState();
            }
            return switch (classify(e)) {
                case DUPLICATE_KEY -> "23505";
                case ALREADY_EXISTS -> "42S01";
                case UNDEFINED_TABLE -> "42S02";
                case ROLLED_BACK -> "40001";
                default -> e.getSQLState();
            };
        }
    }

    @Override
    public String toString() {
        return super.toString() + " (" + features + "; " + concurrency + ")";
    }

    /** Stored forms of keys: {@link PortableFeatures.KeyForm#MARKED}. */
    static String mark(String key) {
        if (key.isEmpty()) {
            return key;
        }
        char last = key.charAt(key.length() - 1);
        return last == ' ' || last == KEY_MARKER ? key + KEY_MARKER : key;
    }

    /** The key of a {@link #mark marked} form. */
    static String unmark(String stored) {
        return !stored.isEmpty() && stored.charAt(stored.length() - 1) == KEY_MARKER
                ? stored.substring(0, stored.length() - 1) : stored;
    }

    private static final KeyCodec MARKED = new StringCodec(PortableDialect::mark, PortableDialect::unmark,
            "keys as they are, marked after a trailing blank");

    private static final KeyCodec HEX = new StringCodec(
            k -> HexFormat.of().formatHex(k.getBytes(StandardCharsets.UTF_8)),
            s -> new String(HexFormat.of().parseHex(s), StandardCharsets.UTF_8), "keys as hex of UTF-8");

    /** A codec storing keys as text in another form. */
    private record StringCodec(java.util.function.UnaryOperator<String> encode,
                               java.util.function.UnaryOperator<String> decode, String description) implements KeyCodec {
        @Override
        public void bind(PreparedStatement ps, int index, String key) throws SQLException {
            if (key == null) {
                ps.setNull(index, Types.VARCHAR);
            } else {
                ps.setString(index, encode.apply(key));
            }
        }

        @Override
        public String read(ResultSet rs, int column) throws SQLException {
            String stored = rs.getString(column);
            return stored == null ? null : decode.apply(stored);
        }

        @Override
        public String read(ResultSet rs, String column) throws SQLException {
            String stored = rs.getString(column);
            return stored == null ? null : decode.apply(stored);
        }

        @Override
        public String toString() {
            return description;
        }
    }

    /** Creates the portable dialect; it supports every database but is never chosen by detection. */
    public static final class Provider implements DialectProvider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public int priority() {
            return Integer.MIN_VALUE;
        }

        @Override
        public boolean supports(DatabaseProduct product) {
            return true;
        }

        @Override
        public Dialect create(DatabaseProduct product, Map<String, String> options) {
            checkNoOptions(options);
            return new PortableDialect(product);
        }

        /** Asks the database what it accepts, once per database in this JVM ({@link PortableFeatures#of}). */
        @Override
        public Dialect create(DatabaseProduct product, Map<String, String> options, Connection connection)
                throws SQLException {
            checkNoOptions(options);
            return new PortableDialect(product, PortableFeatures.of(connection));
        }

        private static void checkNoOptions(Map<String, String> options) {
            if (!options.isEmpty()) {
                throw new IllegalArgumentException("the portable dialect has no options; got " + options.keySet());
            }
        }
    }
}
