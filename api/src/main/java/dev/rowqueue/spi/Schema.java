package dev.rowqueue.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * rowqueue's tables, defined once: columns of logical {@link Type types}, primary keys, indexes and checks. A dialect
 * renders them as DDL through its {@link dev.rowqueue.support.SchemaDdl} ({@link Dialect#ddl()}), with the SQL types
 * of its {@link ColumnTypes}; no dialect restates a column list. Column names are the same on every database, so data can
 * move between them.
 *
 * <p>The same model says what must exist for rowqueue's guarantees, and the schema is checked against it from the
 * database's catalogue (JDBC {@code DatabaseMetaData}) when a queue is opened: every table's columns with their
 * nullability and its primary key always matter; of the indexes, those marked {@link Index#guarantee()} do (the unique
 * index on live jobs' unique keys), and the others serve speed alone.
 */
public final class Schema {

    /**
     * The schema version the catalog records for queues created now: 2 since keyed jobs ({@link #keyColumns()});
     * work queues of version 1 are upgraded on first use ({@link dev.rowqueue.support.SchemaDdl#workUpgrade}).
     */
    public static final int VERSION = 2;

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
     * @param defaultValue an SQL literal for the column's default, or {@code null} for none: a column added to an
     *                 existing table ({@link dev.rowqueue.support.SchemaDdl#workUpgrade}) gets its value in existing rows from it, and
     *                 writers that do not know the column (an older rowqueue on the same table) leave it to it
     */
    public record Column(String name, Type type, int length, boolean notNull, boolean computed, String defaultValue) {
        /** Validates. */
        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }

        /**
         * A column without a default.
         *
         * @param name     its name
         * @param type     its logical type
         * @param length   its length, for {@link Type#LABEL}
         * @param notNull  whether NOT NULL
         * @param computed whether SQL computes its values
         */
        public Column(String name, Type type, int length, boolean notNull, boolean computed) {
            this(name, type, length, notNull, computed, null);
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

        static Column withDefault(String name, Type type, String defaultValue) {
            return new Column(name, type, 0, true, false, defaultValue);
        }
    }

    /**
     * An index.
     *
     * @param name      its name
     * @param columns   its columns in order, each possibly followed by {@code DESC}
     * @param unique    whether unique
     * @param where     a partial index's condition, or {@code null}
     * @param keyed     whether only rows whose first column is not NULL matter: a unique index then allows any number of
     *                  NULLs, and a dialect with partial indexes ({@link dev.rowqueue.support.DdlFeatures#partialIndexes()}) indexes only the
     *                  other rows
     * @param guarantee whether a guarantee depends on it (a unique index that keeps one live job per unique key), as
     *                  opposed to an index that serves speed alone: a queue whose guarantee index is missing refuses
     *                  the operations that need it; a missing speed index is logged at WARN only
     */
    public record Index(String name, List<String> columns, boolean unique, String where, boolean keyed,
                        boolean guarantee) {
        /** Validates and copies. */
        public Index {
            Objects.requireNonNull(name, "name");
            columns = List.copyOf(columns);
            if (guarantee && !unique) {
                throw new IllegalArgumentException("index " + name + ": only a unique index can carry a guarantee");
            }
        }

        /**
         * An index that serves speed alone.
         *
         * @param name    its name
         * @param columns its columns
         * @param unique  whether unique
         * @param where   a partial index's condition, or {@code null}
         * @param keyed   whether only rows whose first column is not NULL matter
         */
        public Index(String name, List<String> columns, boolean unique, String where, boolean keyed) {
            this(name, columns, unique, where, keyed, false);
        }

        /**
         * An index that is not {@code keyed} and serves speed alone.
         *
         * @param name    its name
         * @param columns its columns
         * @param unique  whether unique
         * @param where   a partial index's condition, or {@code null}
         */
        public Index(String name, List<String> columns, boolean unique, String where) {
            this(name, columns, unique, where, false, false);
        }

        /**
         * @param name    its name
         * @param unique  whether unique
         * @param columns its columns
         * @return a full index that serves speed alone
         */
        public static Index on(String name, boolean unique, String... columns) {
            return new Index(name, List.of(columns), unique, null);
        }

        /**
         * @param condition a condition on the table's rows
         * @return this index, partial on the condition
         */
        public Index where(String condition) {
            return new Index(name, columns, unique, condition, keyed, guarantee);
        }

        /**
         * @return this index for rows whose first column is not NULL only (see {@code keyed})
         */
        public Index forKeys() {
            return new Index(name, columns, unique, where, true, guarantee);
        }

        /**
         * @return this (unique) index as one a guarantee depends on (see {@code guarantee})
         */
        public Index guarantees() {
            return new Index(name, columns, unique, where, keyed, true);
        }

        /** @return its column names, without {@code DESC} */
        public List<String> columnNames() {
            return columns.stream().map(c -> c.replace(" DESC", "")).toList();
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

    /** The schedules table's name. */
    public static final String SCHEDULES_TABLE = "rowqueue_schedules";
    /** The fired slots table's name. */
    public static final String SCHEDULE_SLOTS_TABLE = "rowqueue_schedule_slots";

    /**
     * The schedules: one row per schedule, with its definition ({@code spec} is a schedule's canonical text), its next
     * slot, whether it is paused, the job a fixed delay waits for, and a revision that every change bumps (the
     * scheduler advances a schedule with a compare-and-set on it).
     *
     * @return the table
     */
    public static Table schedules() {
        return new Table(SCHEDULES_TABLE, List.of(
                Column.label("schedule_name", 64, true),
                Column.label("spec", 400, true),
                Column.label("queue_name", 64, true),
                Column.of("payload", Type.PAYLOAD),
                Column.nullable("job_key", Type.PAYLOAD),
                Column.label("missed", 16, true),
                Column.of("paused", Type.INT16),
                Column.of("next_ms", Type.INT64),
                Column.nullable("last_job", Type.INT64),
                Column.of("revision", Type.INT64),
                Column.of("created_ms", Type.INT64)),
                List.of("schedule_name"),
                List.of(Index.on("rowqueue_schedules_due", false, "paused", "next_ms")), List.of());
    }

    /**
     * The slots that got their job: the primary key {@code (schedule_name, slot_ms)} is what makes one job per
     * (schedule, slot) however many schedulers race. Rows older than a day are deleted as schedules fire.
     *
     * @return the table
     */
    public static Table scheduleSlots() {
        return new Table(SCHEDULE_SLOTS_TABLE, List.of(
                Column.label("schedule_name", 64, true),
                Column.of("slot_ms", Type.INT64),
                Column.of("fired_ms", Type.INT64)),
                List.of("schedule_name", "slot_ms"), List.of(), List.of());
    }

    /**
     * The activity of work queues ({@link dev.rowqueue.WorkQueue#activity()}): one row per queue, minute and flush of a
     * process's in-memory counts ({@code flush_id} is random per flush, so flushes never collide); rows older than an
     * hour are deleted. Created with the catalog; {@link #activityWaitColumns() the wait columns} came later and are
     * added to an existing table ({@link dev.rowqueue.support.SchemaDdl#activityUpgrade()}).
     *
     * @return the table
     */
    public static Table activity() {
        List<Column> columns = new ArrayList<>(List.of(
                Column.label("queue_name", 64, true),
                Column.of("minute_ms", Type.INT64),
                Column.of("flush_id", Type.INT64),
                Column.of("n_enqueued", Type.INT64),
                Column.of("n_finished", Type.INT64),
                Column.of("n_failed", Type.INT64)));
        columns.addAll(activityWaitColumns());
        return new Table(Dialect.ACTIVITY_TABLE, columns, List.of("queue_name", "minute_ms", "flush_id"), List.of(),
                List.of());
    }

    /**
     * The activity columns of the wait from enqueue to start, per minute of the start: {@code n_started} first
     * attempts claimed, {@code wait_ms_sum} the sum and {@code wait_ms_max} the longest of their waits (claim time
     * less enqueue time, in milliseconds). Default 0, so writers that do not know them still insert.
     *
     * @return the columns
     */
    public static List<Column> activityWaitColumns() {
        return List.of(Column.withDefault("n_started", Type.INT64, "0"),
                Column.withDefault("wait_ms_sum", Type.INT64, "0"),
                Column.withDefault("wait_ms_max", Type.INT64, "0"));
    }

    /** The nodes table's name ({@link #nodes()}). */
    public static final String NODES_TABLE = "rowqueue_nodes";

    /**
     * The processes using rowqueue on the database ({@link dev.rowqueue.RowQueues#nodes()}): one row per node, with its
     * id (also the high bits of its lease tokens), name, host, process id, start, last heartbeat, whether it runs a
     * scheduler and what it runs in words. Rows of nodes silent for long are deleted. Created with the catalog; not
     * migrated (its rows describe running processes).
     *
     * @return the table
     */
    public static Table nodes() {
        return new Table(NODES_TABLE, List.of(
                Column.of("node_id", Type.INT64),
                Column.label("node_name", 128, true),
                Column.label("host", 255, true),
                Column.of("pid", Type.INT64),
                Column.of("started_ms", Type.INT64),
                Column.of("seen_ms", Type.INT64),
                Column.of("scheduler", Type.INT16),
                Column.label("runs", 400, true)),
                List.of("node_id"), List.of(), List.of());
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
     * The jobs table (schema version {@value #VERSION}): the columns of version 1, then
     * {@link #keyColumns the key columns}; the claim index on {@code (state, prio DESC, due_ms, id)}, then
     * {@link #keyIndexes the key indexes}.
     *
     * @param t a work queue's tables
     * @return its jobs
     */
    public static Table jobs(WorkTables t) {
        Table v1 = jobsVersion1(t);
        List<Column> columns = new ArrayList<>(v1.columns());
        columns.addAll(keyColumns());
        List<Index> indexes = new ArrayList<>(v1.indexes());
        indexes.addAll(keyIndexes(t));
        return new Table(v1.name(), columns, v1.primaryKey(), indexes, v1.checks());
    }

    /**
     * The jobs table of schema version 1, before keys: kept to describe what {@link dev.rowqueue.support.SchemaDdl#workUpgrade} upgrades,
     * and for tests of that upgrade.
     *
     * @param t a work queue's tables
     * @return its jobs as version 1 created them
     */
    public static Table jobsVersion1(WorkTables t) {
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
     * The columns schema version 2 added to the jobs table (keyed jobs):
     * <ul>
     *   <li>{@code job_key}: the job's key, or NULL;</li>
     *   <li>{@code unique_key}: the job's unique key while the job is live (ready, scheduled or leased); NULL for a job
     *       without one and for a dead job;</li>
     *   <li>{@code key_seq}: the job's round among its key's jobs ({@code 0} for a job without a key): one more than
     *       the newest live job of the key when it was enqueued, and at least the lowest round of the queue's due
     *       jobs. Fair claims go by it; within a key it is the enqueue order.</li>
     * </ul>
     *
     * @return the columns
     */
    public static List<Column> keyColumns() {
        return List.of(Column.nullable("job_key", Type.KEY), Column.nullable("unique_key", Type.KEY),
                Column.withDefault("key_seq", Type.INT64, "0"));
    }

    /**
     * The indexes schema version 2 added to the jobs table:
     * <ul>
     *   <li>{@link WorkTables#uniqueIndex()}, unique on {@code unique_key} of the rows that have one: at most one live
     *       job per unique key (the one {@linkplain Index#guarantee() guarantee} index: without it, unique enqueues are
     *       refused);</li>
     *   <li>{@link WorkTables#keyIndex()} on {@code (job_key, state, key_seq, id)}: a key's jobs in enqueue order (which
     *       job is next for its key, and the key's newest round);</li>
     *   <li>{@link WorkTables#leaseIndex()} on {@code (job_key, lease_token)}: a key's leased jobs;</li>
     *   <li>{@link WorkTables#fairIndex()} on {@code (state, key_seq, prio DESC, id)}: the order of fair claims.</li>
     * </ul>
     *
     * @param t a work queue's tables
     * @return the indexes
     */
    public static List<Index> keyIndexes(WorkTables t) {
        return List.of(Index.on(t.uniqueIndex(), true, "unique_key").forKeys().guarantees(),
                Index.on(t.keyIndex(), false, "job_key", "state", "key_seq", "id").forKeys(),
                Index.on(t.leaseIndex(), false, "job_key", "lease_token").forKeys(),
                Index.on(t.fairIndex(), false, "state", "key_seq", "prio DESC", "id"));
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
