package dev.rowqueue.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * rowqueue's tables, defined once: columns of logical {@link Type types}, primary keys, indexes and checks. A dialect
 * renders them as DDL through {@link Dialect#createTable} and {@link Dialect#createIndex}, with the SQL types of its
 * {@link ColumnTypes}; no dialect restates a column list. Column names are the same on every database, so data can
 * move between them.
 */
public final class Schema {

    private Schema() {
    }

    /** Logical column types; {@link ColumnTypes} maps each to a database's SQL type. */
    public enum Type {
        /** A ring group, counter key or cursor name: up to {@link Dialect#KEY_LENGTH} characters, compared exactly. */
        KEY,
        /** A payload: up to the dialect's {@link Dialect#maxPayloadLength()} characters. */
        PAYLOAD,
        /** A nack's error text: up to {@link Dialect#ERROR_LENGTH} characters. */
        ERROR_TEXT,
        /** A short ASCII label of the catalog (queue name, kind, strategy), of the column's own length. */
        LABEL,
        /** A signed 64-bit integer. */
        INT64,
        /** A signed 32-bit integer. */
        INT32,
        /** A small integer (a job's state). */
        INT16,
        /** A 64-bit integer the database generates for inserted rows (a job's id). */
        IDENTITY
    }

    /**
     * A column.
     *
     * @param name     its name
     * @param type     its logical type
     * @param length   its length in characters, for {@link Type#LABEL}; 0 for the others (the dialect's length)
     * @param notNull  whether NOT NULL
     * @param computed whether SQL computes its values ({@code x = x + ?}), so a database whose 64-bit type is wider
     *                 than Java's {@code long} must check the range
     */
    public record Column(String name, Type type, int length, boolean notNull, boolean computed) {
        /** Validates. */
        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }

        static Column of(String name, Type type) {
            return new Column(name, type, 0, true, false);
        }

        static Column nullable(String name, Type type) {
            return new Column(name, type, 0, false, false);
        }

        static Column computed(String name) {
            return new Column(name, Type.INT64, 0, true, true);
        }

        static Column label(String name, int length, boolean notNull) {
            return new Column(name, Type.LABEL, length, notNull, false);
        }
    }

    /**
     * An index.
     *
     * @param name    its name
     * @param columns its columns in order, each possibly followed by {@code DESC}
     * @param unique  whether unique
     * @param where   a partial index's condition, or {@code null}
     */
    public record Index(String name, List<String> columns, boolean unique, String where) {
        /** Validates and copies. */
        public Index {
            Objects.requireNonNull(name, "name");
            columns = List.copyOf(columns);
        }

        /**
         * @param name    its name
         * @param unique  whether unique
         * @param columns its columns
         * @return a full index
         */
        public static Index on(String name, boolean unique, String... columns) {
            return new Index(name, List.of(columns), unique, null);
        }

        /**
         * @param condition a condition on the table's rows
         * @return this index, partial on the condition
         */
        public Index where(String condition) {
            return new Index(name, columns, unique, condition);
        }
    }

    /**
     * A table.
     *
     * @param name       its name
     * @param columns    its columns in order
     * @param primaryKey the primary key's columns
     * @param indexes    its secondary indexes
     * @param checks     CHECK constraints' conditions
     */
    public record Table(String name, List<Column> columns, List<String> primaryKey, List<Index> indexes,
                        List<String> checks) {
        /** Validates and copies. */
        public Table {
            Objects.requireNonNull(name, "name");
            columns = List.copyOf(columns);
            primaryKey = List.copyOf(primaryKey);
            indexes = List.copyOf(indexes);
            checks = List.copyOf(checks);
        }

        /**
         * @param replaced the indexes to have instead
         * @return this table with other indexes
         */
        public Table withIndexes(List<Index> replaced) {
            return new Table(name, columns, primaryKey, replaced, checks);
        }

        /**
         * @param condition a CHECK constraint's condition
         * @return this table with the check added
         */
        public Table withCheck(String condition) {
            List<String> all = new ArrayList<>(checks);
            all.add(condition);
            return new Table(name, columns, primaryKey, indexes, all);
        }
    }

    /** @return the catalog of queues */
    public static Table catalog() {
        return new Table(Dialect.CATALOG_TABLE, List.of(
                Column.label("queue_name", 64, true),
                Column.label("kind", 16, true),
                Column.of("capacity", Type.INT32),
                Column.label("strategy", 32, false),
                Column.of("schema_version", Type.INT32),
                Column.of("created_ms", Type.INT64)),
                List.of("queue_name"), List.of(), List.of());
    }

    /**
     * @param t        a ring's tables
     * @param indexSeq whether to index {@code (grp, seq)} uniquely
     * @return its entries: one row per slot
     */
    public static Table ringEntries(RingTables t, boolean indexSeq) {
        return new Table(t.entries(), List.of(
                Column.of("grp", Type.KEY),
                Column.of("slot", Type.INT32),
                Column.computed("seq"),
                Column.of("payload", Type.PAYLOAD),
                Column.of("pushed_ms", Type.INT64)),
                List.of("grp", "slot"),
                indexSeq ? List.of(Index.on(t.seqIndex(), true, "grp", "seq")) : List.of(), List.of());
    }

    /**
     * @param t a ring's tables
     * @return its head rows: the last sequence number of each group
     */
    public static Table ringHeads(RingTables t) {
        return new Table(t.heads(), List.of(Column.of("grp", Type.KEY), Column.computed("last_seq")),
                List.of("grp"), List.of(), List.of());
    }

    /**
     * @param t a work queue's tables
     * @return its jobs, with the claim index on {@code (state, prio DESC, due_ms, id)}
     */
    public static Table jobs(WorkTables t) {
        return new Table(t.jobs(), List.of(
                Column.of("id", Type.IDENTITY),
                Column.of("payload", Type.PAYLOAD),
                Column.of("prio", Type.INT32),
                Column.of("state", Type.INT16),
                Column.computed("due_ms"),
                Column.of("attempts", Type.INT32),
                Column.nullable("lease_token", Type.INT64),
                Column.of("enqueued_ms", Type.INT64),
                Column.nullable("last_error", Type.ERROR_TEXT)),
                List.of("id"),
                List.of(Index.on(t.claimIndex(), false, "state", "prio DESC", "due_ms", "id")), List.of());
    }

    /**
     * @param t a work queue's tables
     * @return its rotation cursors
     */
    public static Table cursors(WorkTables t) {
        return new Table(t.cursors(), List.of(Column.of("cursor_name", Type.KEY), Column.of("last_id", Type.INT64)),
                List.of("cursor_name"), List.of(), List.of());
    }

    /**
     * @param t a counters queue's table
     * @return the table
     */
    public static Table counters(CounterTable t) {
        return new Table(t.table(), List.of(Column.of("counter_key", Type.KEY), Column.computed("counter_value")),
                List.of("counter_key"), List.of(), List.of());
    }
}
