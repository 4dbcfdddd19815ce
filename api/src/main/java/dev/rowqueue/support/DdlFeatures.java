package dev.rowqueue.support;

import dev.rowqueue.spi.ColumnTypes;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Schema;

import java.util.List;
import java.util.Objects;

/**
 * What a database's DDL looks like, as answers that {@link SchemaDdl} renders every table, index and schema upgrade
 * from: the column types and a few capabilities. Immutable; built with {@link #builder(ColumnTypes)}, changed with
 * {@link #toBuilder()}.
 *
 * <pre>{@code
 * DdlFeatures h2 = DdlFeatures.builder(ColumnTypes.STANDARD.with(Schema.Type.PAYLOAD, "CHARACTER VARYING(%d)"))
 *         .payloadLength(1_000_000)
 *         .ifNotExists(true)
 *         .build();
 * }</pre>
 *
 * <p>Statement templates ({@link Builder#addColumn}, {@link Builder#restartIdentity}, {@link Builder#sequence}) name
 * what they are rendered for in braces: {@value #TABLE}, {@value #COLUMN}, {@value #JOBS}, {@value #SEQUENCE},
 * {@value #NEXT} and {@value #LAST}. Every name in them is a validated identifier and every number a {@code long},
 * so they hold no user input.
 */
public final class DdlFeatures {

    /** In {@link Builder#addColumn}: the table's name. */
    public static final String TABLE = "{table}";
    /** In {@link Builder#addColumn}: the column's definition. */
    public static final String COLUMN = "{column}";
    /** In {@link Builder#restartIdentity}: the jobs table's name. */
    public static final String JOBS = "{jobs}";
    /**
     * In {@link Builder#sequence}, in an identity column type drawing from a sequence and in
     * {@link Builder#restartIdentity}: the sequence's name ({@link dev.rowqueue.spi.WorkTables#sequence()}).
     */
    public static final String SEQUENCE = "{sequence}";
    /** In {@link Builder#restartIdentity}: the id the next job must get at least. */
    public static final String NEXT = "{next}";
    /** In {@link Builder#restartIdentity}: one less than {@value #NEXT}. */
    public static final String LAST = "{last}";

    /** SQL:2003's {@code ALTER TABLE ... ADD COLUMN}. */
    public static final String ADD_COLUMN = "ALTER TABLE " + TABLE + " ADD COLUMN " + COLUMN;
    /** SQL:2003's {@code ALTER TABLE ... ALTER COLUMN ... RESTART WITH}. */
    public static final List<String> RESTART_IDENTITY = List.of(
            "ALTER TABLE " + JOBS + " ALTER COLUMN id RESTART WITH " + NEXT);

    private final ColumnTypes types;
    private final int payloadLength;
    private final boolean ifNotExists;
    private final boolean partialIndexes;
    private final boolean liveJobIndexes;
    private final boolean ringSeqIndex;
    private final boolean descendingIndexes;
    private final boolean indexesInTable;
    private final boolean uniqueKeyedAsConstraint;
    private final String keyedIndexSuffix;
    private final String tableOptions;
    private final String addColumn;
    private final boolean addsConstrainedColumns;
    private final boolean nullablePayloads;
    private final String computedCheck;
    private final String sequence;
    private final String dropSuffix;
    private final List<String> restartIdentity;

    private DdlFeatures(Builder b) {
        this.types = b.types;
        this.payloadLength = b.payloadLength;
        this.ifNotExists = b.ifNotExists;
        this.partialIndexes = b.partialIndexes;
        this.liveJobIndexes = b.liveJobIndexes;
        this.ringSeqIndex = b.ringSeqIndex;
        this.descendingIndexes = b.descendingIndexes;
        this.indexesInTable = b.indexesInTable;
        this.uniqueKeyedAsConstraint = b.uniqueKeyedAsConstraint;
        this.keyedIndexSuffix = b.keyedIndexSuffix;
        this.tableOptions = b.tableOptions;
        this.addColumn = b.addColumn;
        this.addsConstrainedColumns = b.addsConstrainedColumns;
        this.nullablePayloads = b.nullablePayloads;
        this.computedCheck = b.computedCheck;
        this.sequence = b.sequence;
        this.dropSuffix = b.dropSuffix;
        this.restartIdentity = b.restartIdentity;
    }

    /**
     * @param types the database's column types
     * @return a builder with the SQL standard's answers: no {@code IF NOT EXISTS}, no partial indexes, indexes by
     *         {@code CREATE INDEX}, payloads of 4000 characters
     */
    public static Builder builder(ColumnTypes types) {
        return new Builder(types);
    }

    /** @return a builder with these answers */
    public Builder toBuilder() {
        Builder b = new Builder(types);
        b.payloadLength = payloadLength;
        b.ifNotExists = ifNotExists;
        b.partialIndexes = partialIndexes;
        b.liveJobIndexes = liveJobIndexes;
        b.ringSeqIndex = ringSeqIndex;
        b.descendingIndexes = descendingIndexes;
        b.indexesInTable = indexesInTable;
        b.uniqueKeyedAsConstraint = uniqueKeyedAsConstraint;
        b.keyedIndexSuffix = keyedIndexSuffix;
        b.tableOptions = tableOptions;
        b.addColumn = addColumn;
        b.addsConstrainedColumns = addsConstrainedColumns;
        b.nullablePayloads = nullablePayloads;
        b.computedCheck = computedCheck;
        b.sequence = sequence;
        b.dropSuffix = dropSuffix;
        b.restartIdentity = restartIdentity;
        return b;
    }

    /** @return the column types */
    public ColumnTypes types() {
        return types;
    }

    /** @return the payload columns' length in characters */
    public int payloadLength() {
        return payloadLength;
    }

    /** @return whether {@code CREATE TABLE/INDEX IF NOT EXISTS} and {@code DROP TABLE IF EXISTS} exist */
    public boolean ifNotExists() {
        return ifNotExists;
    }

    /** @return whether keyed indexes leave out rows without a key ({@code CREATE INDEX ... WHERE}) */
    public boolean partialIndexes() {
        return partialIndexes;
    }

    /** @return whether the jobs table's claim, dead-letter and fair indexes are partial ones over live or dead jobs */
    public boolean liveJobIndexes() {
        return liveJobIndexes;
    }

    /** @return whether the safe ring strategy's entries get the unique {@code (grp, seq)} index */
    public boolean ringSeqIndex() {
        return ringSeqIndex;
    }

    /** @return whether index columns may be descending */
    public boolean descendingIndexes() {
        return descendingIndexes;
    }

    /** @return whether every index is declared inside CREATE TABLE ({@code [UNIQUE] KEY name (...)}) */
    public boolean indexesInTable() {
        return indexesInTable;
    }

    /** @return whether a unique keyed index is a UNIQUE constraint instead (a unique index would allow one NULL) */
    public boolean uniqueKeyedAsConstraint() {
        return uniqueKeyedAsConstraint;
    }

    /** @return what follows a keyed index's CREATE INDEX, or "" */
    public String keyedIndexSuffix() {
        return keyedIndexSuffix;
    }

    /** @return what follows every CREATE TABLE's closing parenthesis, or "" */
    public String tableOptions() {
        return tableOptions;
    }

    /** @return the template of a schema upgrade's added column */
    public String addColumn() {
        return addColumn;
    }

    /** @return whether an added column keeps its NOT NULL (else it is added with its default only) */
    public boolean addsConstrainedColumns() {
        return addsConstrainedColumns;
    }

    /** @return whether payload columns are nullable (a database storing '' as NULL) */
    public boolean nullablePayloads() {
        return nullablePayloads;
    }

    /** @return the range check of a computed 64-bit column, after its name, or {@code null} for none */
    public String computedCheck() {
        return computedCheck;
    }

    /** @return the template creating an identity column's sequence, or {@code null} where identity columns exist */
    public String sequence() {
        return sequence;
    }

    /** @return what follows a DROP TABLE, or "" */
    public String dropSuffix() {
        return dropSuffix;
    }

    /** @return the templates that make the job id continue at {@value #NEXT}; empty where nothing needs to run */
    public List<String> restartIdentity() {
        return restartIdentity;
    }

    @Override
    public String toString() {
        return "DdlFeatures[" + types + ", payload " + payloadLength + (ifNotExists ? ", if not exists" : "")
                + (partialIndexes ? ", partial indexes" : "") + (liveJobIndexes ? ", live job indexes" : "")
                + (ringSeqIndex ? "" : ", no ring seq index") + (descendingIndexes ? "" : ", no descending indexes")
                + (indexesInTable ? ", indexes in table" : "")
                + (uniqueKeyedAsConstraint ? ", unique keyed constraints" : "")
                + (sequence == null ? "" : ", sequence " + sequence) + "]";
    }

    /** Collects the answers; the defaults are the SQL standard's. */
    public static final class Builder {
        private final ColumnTypes types;
        private int payloadLength = 4000;
        private boolean ifNotExists;
        private boolean partialIndexes;
        private boolean liveJobIndexes;
        private boolean ringSeqIndex = true;
        private boolean descendingIndexes = true;
        private boolean indexesInTable;
        private boolean uniqueKeyedAsConstraint;
        private String keyedIndexSuffix = "";
        private String tableOptions = "";
        private String addColumn = ADD_COLUMN;
        private boolean addsConstrainedColumns = true;
        private boolean nullablePayloads;
        private String computedCheck;
        private String sequence;
        private String dropSuffix = "";
        private List<String> restartIdentity = RESTART_IDENTITY;

        private Builder(ColumnTypes types) {
            this.types = Objects.requireNonNull(types, "types");
        }

        /**
         * @param length the payload columns' length in characters, as the dialect's
         *               {@link dev.rowqueue.spi.DialectPolicy#maxPayloadLength()} (default 4000)
         * @return this builder
         */
        public Builder payloadLength(int length) {
            if (length < 1) {
                throw new IllegalArgumentException("payloadLength must be at least 1; got " + length);
            }
            this.payloadLength = length;
            return this;
        }

        /**
         * @param value whether {@code CREATE TABLE/INDEX IF NOT EXISTS} and {@code DROP TABLE IF EXISTS} exist
         *              (default no)
         * @return this builder
         */
        public Builder ifNotExists(boolean value) {
            this.ifNotExists = value;
            return this;
        }

        /**
         * Whether {@code CREATE INDEX ... WHERE} exists. Where it does, {@linkplain Schema.Index#keyed() keyed} indexes
         * leave out rows without a key, so queues that use no keys pay nothing for them. Elsewhere they are full
         * indexes, and a unique one relies on NULLs not conflicting (SQL's rule; see {@link #keyedIndexSuffix} and
         * {@link #uniqueKeyedAsConstraint} where a database differs).
         *
         * @param value default no
         * @return this builder
         */
        public Builder partialIndexes(boolean value) {
            this.partialIndexes = value;
            return this;
        }

        /**
         * Partial indexes of the jobs table instead of the generic ones: {@code (prio DESC, due_ms, id)} over live
         * jobs, which a claim walks in order and leaves after {@code n} rows however many jobs are dead; {@code (id)}
         * over dead jobs, for dead letters; {@code (key_seq, prio DESC, id)} over live jobs for fair claims.
         *
         * @param value default no
         * @return this builder
         */
        public Builder liveJobIndexes(boolean value) {
            this.liveJobIndexes = value;
            return this;
        }

        /**
         * Whether the safe strategy's ring entries get the unique {@code (grp, seq)} index (the single-writer and
         * trigger strategies always do: their {@code MAX(seq)} needs it). Without it, a push after the first lap
         * rewrites a slot without touching a second index; the ring store must then read the newest entries through
         * the head row, since reads ordered by {@code seq} would sort the group's rows.
         *
         * @param value default yes
         * @return this builder
         */
        public Builder ringSeqIndex(boolean value) {
            this.ringSeqIndex = value;
            return this;
        }

        /**
         * @param value whether index columns may be descending (default yes); without, they are ascending and claims
         *              sort their candidates
         * @return this builder
         */
        public Builder descendingIndexes(boolean value) {
            this.descendingIndexes = value;
            return this;
        }

        /**
         * Indexes declared inside CREATE TABLE as {@code [UNIQUE] KEY name (...)}, for a database without
         * {@code CREATE INDEX IF NOT EXISTS} (MySQL), so that creating a schema twice is harmless; an index added to
         * an existing table is {@code ALTER TABLE ... ADD [UNIQUE] INDEX}.
         *
         * @param value default no
         * @return this builder
         */
        public Builder indexesInTable(boolean value) {
            this.indexesInTable = value;
            return this;
        }

        /**
         * Where a unique index allows only one NULL, a unique {@linkplain Schema.Index#keyed() keyed} index is a
         * UNIQUE constraint instead, which SQL lets hold any number of NULLs: declared in the CREATE TABLE, added
         * by {@code ALTER TABLE ... ADD CONSTRAINT} in an upgrade.
         *
         * @param value default no
         * @return this builder
         */
        public Builder uniqueKeyedAsConstraint(boolean value) {
            this.uniqueKeyedAsConstraint = value;
            return this;
        }

        /**
         * @param suffix what follows a {@linkplain Schema.Index#keyed() keyed} index's CREATE INDEX (Db2's
         *               {@code " EXCLUDE NULL KEYS"}); default ""
         * @return this builder
         */
        public Builder keyedIndexSuffix(String suffix) {
            this.keyedIndexSuffix = Objects.requireNonNull(suffix, "suffix");
            return this;
        }

        /**
         * @param options what follows every CREATE TABLE's closing parenthesis, with its leading blank (storage
         *                engine, character set); default ""
         * @return this builder
         */
        public Builder tableOptions(String options) {
            this.tableOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * @param template an added column's statement, with {@value #TABLE} and {@value #COLUMN}; default
         *                 {@link #ADD_COLUMN}
         * @return this builder
         */
        public Builder addColumn(String template) {
            this.addColumn = Objects.requireNonNull(template, "template");
            return this;
        }

        /**
         * @param value whether {@code ALTER TABLE ... ADD} takes a column with a default and {@code NOT NULL}
         *              (default yes); without it the column is added with its default only, which fills the existing
         *              rows, and rowqueue writes no NULL into it
         * @return this builder
         */
        public Builder addsConstrainedColumns(boolean value) {
            this.addsConstrainedColumns = value;
            return this;
        }

        /**
         * @param value whether payload columns are nullable, for a database that stores '' as NULL (default no)
         * @return this builder
         */
        public Builder nullablePayloads(boolean value) {
            this.nullablePayloads = value;
            return this;
        }

        /**
         * @param check a range condition following a {@linkplain Schema.Column#computed() computed} column's name in
         *              a column CHECK constraint, for a database whose 64-bit type holds more than Java's
         *              {@code long}; {@code null} (the default) for none
         * @return this builder
         */
        public Builder computedCheck(String check) {
            this.computedCheck = check;
            return this;
        }

        /**
         * @param template where the database has no identity column syntax: the statement creating the sequence the
         *                 id column's default draws from, with {@value #SEQUENCE}, run before the table; {@code null}
         *                 (the default) where identity columns exist
         * @return this builder
         */
        public Builder sequence(String template) {
            this.sequence = template;
            return this;
        }

        /**
         * @param suffix what follows DROP TABLE, with its leading blank (Oracle's {@code " PURGE"}); default ""
         * @return this builder
         */
        public Builder dropSuffix(String suffix) {
            this.dropSuffix = Objects.requireNonNull(suffix, "suffix");
            return this;
        }

        /**
         * @param templates the statements that make the job id continue at {@value #NEXT} after jobs were imported
         *                  with explicit ids, with {@value #JOBS}, {@value #SEQUENCE}, {@value #NEXT} and
         *                  {@value #LAST}; empty where the identity moves past inserted ids by itself. Default
         *                  {@link #RESTART_IDENTITY}
         * @return this builder
         */
        public Builder restartIdentity(List<String> templates) {
            this.restartIdentity = List.copyOf(templates);
            return this;
        }

        /** @return the answers */
        public DdlFeatures build() {
            return new DdlFeatures(this);
        }
    }

    /**
     * @param type a logical type
     * @return its length: {@link Dialect#KEY_LENGTH}, the payload length, {@link Dialect#ERROR_LENGTH}, or 0
     */
    int lengthOf(Schema.Type type) {
        return switch (type) {
            case KEY -> Dialect.KEY_LENGTH;
            case PAYLOAD -> payloadLength;
            case ERROR_TEXT -> Dialect.ERROR_LENGTH;
            default -> 0;
        };
    }
}
