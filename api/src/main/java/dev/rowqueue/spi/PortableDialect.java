package dev.rowqueue.spi;

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
 * logged warning, when detection finds no dialect, and can be forced with {@code builder.dialect("portable")}.
 */
public final class PortableDialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "portable";
    /** Appended to a key that ends in a blank or in itself, where keys are {@link PortableFeatures.KeyForm#MARKED}. */
    public static final char KEY_MARKER = '~';

    private final PortableFeatures features;
    private final ColumnTypes types;
    private final KeyCodec keys;

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
        super(product);
        this.features = features;
        this.keys = switch (features.keyForm()) {
            case EXACT -> KeyCodec.TEXT;
            case MARKED -> MARKED;
            case HEX -> HEX;
        };
        int keyLength = switch (features.keyForm()) {
            case EXACT -> KEY_LENGTH;
            case MARKED -> KEY_LENGTH + 1;
            case HEX -> 2 * 3 * KEY_LENGTH;
        };
        ColumnTypes t = ColumnTypes.STANDARD.with(Schema.Type.KEY, "VARCHAR(" + keyLength + ")");
        this.types = features.identityIsKey() ? t.withIdentityKey(features.identity())
                : t.with(Schema.Type.IDENTITY, features.identity());
    }

    @Override
    public String name() {
        return NAME;
    }

    /** @return what the database was found to accept */
    public PortableFeatures features() {
        return features;
    }

    @Override
    public String nowMillis() {
        return features.castParameters() ? "CAST(:now AS BIGINT)" : ":now";
    }

    @Override
    protected ColumnTypes columnTypes() {
        return types;
    }

    @Override
    protected KeyCodec keyCodec() {
        return keys;
    }

    @Override
    protected boolean supportsIfNotExists() {
        return features.ifNotExists();
    }

    /**
     * Where a unique index would allow only one NULL ({@link PortableFeatures#uniqueIndexNulls()} false: Derby), a
     * unique {@linkplain Schema.Index#keyed() keyed} index is a UNIQUE constraint instead, which SQL lets hold any
     * number of NULLs, declared in the CREATE TABLE (a table being created is locked by its creator alone; an
     * {@code ALTER TABLE} of a new table raced the other nodes' index creation on Derby).
     */
    @Override
    protected boolean declaredInTable(Schema.Index i) {
        return constraintInstead(i);
    }

    private boolean constraintInstead(Schema.Index i) {
        return i.unique() && i.keyed() && !features.uniqueIndexNulls();
    }

    /**
     * Without descending index columns, the claim index is ascending (claims then sort their candidates). A unique
     * keyed index that is a constraint here ({@link #declaredInTable}) is added by {@code ALTER TABLE ... ADD
     * CONSTRAINT} when an upgrade adds it to an existing table.
     */
    @Override
    protected String createIndex(Schema.Table t, Schema.Index i) {
        Schema.Index index = features.descendingIndexes() ? i : new Schema.Index(i.name(),
                i.columns().stream().map(c -> c.replace(" DESC", "")).toList(), i.unique(), i.where(), i.keyed());
        if (constraintInstead(index)) {
            return "ALTER TABLE " + t.name() + " ADD CONSTRAINT " + index.name() + " UNIQUE ("
                    + String.join(", ", index.columns()) + ")";
        }
        return super.createIndex(t, index);
    }

    @Override
    public String limit(String parameter) {
        return switch (features.limit()) {
            case FETCH_FIRST -> super.limit(parameter);
            case LIMIT -> " LIMIT :" + parameter;
            case MAX_ROWS -> "";
        };
    }

    /**
     * One claim of a work queue at a time per instance: claims that wait run together as one when the claim before
     * them ends. On databases whose reads take locks (Derby, HSQLDB's default) consumers that ack and claim at once
     * otherwise wait for each other in cycles, and on SQLite every writer waits for one lock anyway.
     */
    @Override
    public int claimConcurrency() {
        return 1;
    }

    /** Claims write before they read ({@link PortableWorkStore}). */
    @Override
    public WorkStore workStore(WorkTables tables) {
        return new PortableWorkStore(this, tables);
    }

    /** Nothing to run where the identity moves past explicitly inserted ids by itself. */
    @Override
    public List<String> restartIdentity(WorkTables t, long nextId) {
        return features.identityFollows() ? List.of() : super.restartIdentity(t, nextId);
    }

    @Override
    public String generatedKeyColumn() {
        return features.generatedKey();
    }

    /** The probed reports of duplicate keys, existing objects and missing tables, then the standard rules. */
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
        return super.classifyOne(e);
    }

    @Override
    public String toString() {
        return super.toString() + " (" + features + ")";
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

        /** Asks the database what it accepts ({@link PortableFeatures#probe}). */
        @Override
        public Dialect create(DatabaseProduct product, Map<String, String> options, Connection connection)
                throws SQLException {
            checkNoOptions(options);
            return new PortableDialect(product, PortableFeatures.probe(connection));
        }

        private static void checkNoOptions(Map<String, String> options) {
            if (!options.isEmpty()) {
                throw new IllegalArgumentException("the portable dialect has no options; got " + options.keySet());
            }
        }
    }
}
