package dev.rowqueue.cli;

import dev.rowqueue.QueueInfo;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkTables;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.UnaryOperator;

/**
 * One table of a queue as the migration moves it: its columns (identical on every database, see {@link RingTables},
 * {@link WorkTables}, {@link CounterTable}), its key (the first one or two columns, read in key order on the source),
 * and how a source row becomes a target row. Rows are read and written with plain {@code SELECT} and {@code INSERT}
 * and bind parameters, so any two databases rowqueue supports can exchange them.
 *
 * @param queue     the queue name
 * @param label     the part's name in checkpoints and reports ("entries", "heads", "jobs", "cursors", "counters")
 * @param table     the table
 * @param columns   every column, key columns first
 * @param keyLength how many leading columns form the primary key (1 or 2)
 * @param transform turns a source row into the row the target gets (a copy; the argument is not changed)
 * @param sourceExpressions stand-ins for columns an older source lacks, by column name
 * @param filter    a condition on the table's rows that belong to the queue (with the parameter {@code :queue}), for
 *                  tables shared by every queue such as the schedules; {@code null} for a queue's own table
 */
record MigrationPart(String queue, String label, String table, List<Column> columns, int keyLength,
                     UnaryOperator<Object[]> transform, java.util.Map<String, String> sourceExpressions,
                     String filter) {

    /**
     * A part read from and written to tables with the same columns.
     *
     * @param queue     the queue name
     * @param label     the part's name
     * @param table     the table
     * @param columns   every column, key columns first
     * @param keyLength how many leading columns form the primary key
     * @param transform turns a source row into the row the target gets
     */
    MigrationPart(String queue, String label, String table, List<Column> columns, int keyLength,
                  UnaryOperator<Object[]> transform) {
        this(queue, label, table, columns, keyLength, transform, java.util.Map.of(), null);
    }

    /** The columns the jobs table gained with schema version 2 (keyed jobs). */
    static final List<String> KEY_COLUMNS = List.of("job_key", "unique_key", "key_seq");

    /**
     * This part as read from a source whose jobs table has schema version 1: the key columns are read as the values
     * a job without a key has ({@code NULL}, {@code NULL}, {@code 0}), typed for the source's dialect.
     *
     * @param source the source's dialect
     * @return the part for the source side
     */
    MigrationPart fromVersion1(Dialect source) {
        String noKey = "CAST(NULL AS " + source.typeOf(dev.rowqueue.spi.Schema.Type.KEY) + ")";
        return new MigrationPart(queue, label, table, columns, keyLength, transform,
                java.util.Map.of("job_key", noKey, "unique_key", noKey, "key_seq", "0"), filter);
    }

    /** How a column is read, bound and hashed. */
    enum Type {
        /** A non-null key string. */
        KEY,
        /** A payload: NULL (Oracle's empty string) reads as "". */
        TEXT,
        /** An optional text: NULL and "" are both absent. */
        OPTIONAL_TEXT,
        /** A key string or NULL (a job's key and unique key). */
        OPTIONAL_KEY,
        /** A 32-bit integer. */
        INT,
        /** A 64-bit integer. */
        LONG,
        /** An optional 64-bit integer, never written (the migration leaves it NULL on the target). */
        OPTIONAL_LONG,
        /** A 64-bit integer or NULL, written as read. */
        NULLABLE_LONG
    }

    /**
     * @param name the column name
     * @param type its type
     */
    record Column(String name, Type type) {
        /**
         * @return the column's bind parameter: key columns use the names every store binds keys under
         *         ({@code :grp}, {@code :key}, {@code :cursor}), so a dialect that stores keys encoded (Db2) encodes
         *         them here too
         */
        String param() {
            if (type != Type.KEY && type != Type.OPTIONAL_KEY) {
                return name;
            }
            return switch (name) {
                case "counter_key", "job_key" -> "key";
                case "cursor_name" -> "cursor";
                case "unique_key" -> "ukey";
                default -> name;
            };
        }
    }

    /**
     * The parts of a queue, in copy order.
     *
     * @param info the queue's catalog entry on the source
     * @return its tables as parts
     */
    static List<MigrationPart> of(QueueInfo info) {
        String q = info.name();
        return switch (info.kind()) {
            case RING -> {
                RingTables t = RingTables.of(q);
                yield List.of(
                        new MigrationPart(q, "heads", t.heads(), List.of(new Column("grp", Type.KEY),
                                new Column("last_seq", Type.LONG)), 1, UnaryOperator.identity()),
                        new MigrationPart(q, "entries", t.entries(), List.of(new Column("grp", Type.KEY),
                                new Column("slot", Type.INT), new Column("seq", Type.LONG),
                                new Column("payload", Type.TEXT), new Column("pushed_ms", Type.LONG)), 2,
                                UnaryOperator.identity()));
            }
            case WORK -> {
                WorkTables t = WorkTables.of(q);
                yield List.of(
                        new MigrationPart(q, "jobs", t.jobs(), List.of(new Column("id", Type.LONG),
                                new Column("payload", Type.TEXT), new Column("prio", Type.INT),
                                new Column("state", Type.INT), new Column("due_ms", Type.LONG),
                                new Column("attempts", Type.INT), new Column("lease_token", Type.OPTIONAL_LONG),
                                new Column("enqueued_ms", Type.LONG), new Column("last_error", Type.OPTIONAL_TEXT),
                                new Column("job_key", Type.OPTIONAL_KEY), new Column("unique_key", Type.OPTIONAL_KEY),
                                new Column("key_seq", Type.LONG)),
                                1, MigrationPart::unlease),
                        new MigrationPart(q, "cursors", t.cursors(), List.of(new Column("cursor_name", Type.KEY),
                                new Column("last_id", Type.LONG)), 1, UnaryOperator.identity()));
            }
            case COUNTERS -> List.of(new MigrationPart(q, "counters", CounterTable.of(q).table(),
                    List.of(new Column("counter_key", Type.KEY), new Column("counter_value", Type.LONG)), 1,
                    UnaryOperator.identity()));
        };
    }

    /**
     * The schedules that enqueue into a work queue, and their fired slots: they move with the queue, revision, next
     * slot, pause, template and the job a fixed delay waits for unchanged (job ids are kept).
     *
     * @param queue the work queue
     * @return the schedule parts, in copy order
     */
    static List<MigrationPart> schedules(String queue) {
        String own = "queue_name = :queue";
        return List.of(
                new MigrationPart(queue, "schedules", dev.rowqueue.spi.Schema.SCHEDULES_TABLE, List.of(
                        new Column("schedule_name", Type.TEXT), new Column("spec", Type.TEXT),
                        new Column("queue_name", Type.TEXT), new Column("payload", Type.TEXT),
                        new Column("job_key", Type.OPTIONAL_TEXT), new Column("missed", Type.TEXT),
                        new Column("paused", Type.INT), new Column("next_ms", Type.LONG),
                        new Column("last_job", Type.NULLABLE_LONG), new Column("revision", Type.LONG),
                        new Column("created_ms", Type.LONG)), 1, UnaryOperator.identity(), java.util.Map.of(), own),
                new MigrationPart(queue, "schedule slots", dev.rowqueue.spi.Schema.SCHEDULE_SLOTS_TABLE, List.of(
                        new Column("schedule_name", Type.TEXT), new Column("slot_ms", Type.LONG),
                        new Column("fired_ms", Type.LONG)), 2, UnaryOperator.identity(), java.util.Map.of(),
                        "schedule_name IN (SELECT schedule_name FROM " + dev.rowqueue.spi.Schema.SCHEDULES_TABLE
                                + " WHERE " + own + ")"));
    }

    /**
     * A leased job (active or expired lease) arrives ready: no lease token, due at its enqueue time, attempts as
     * they were. Nothing on the target holds its lease.
     */
    private static Object[] unlease(Object[] row) {
        Object[] copy = row.clone();
        if (copy[6] != null) {
            copy[6] = null;
            copy[4] = copy[7];
        }
        return copy;
    }

    /** @return the columns in a select list (or, for a source of an older schema, their stand-ins) */
    String selectList() {
        StringJoiner j = new StringJoiner(", ");
        columns.forEach(c -> j.add(sourceExpressions.getOrDefault(c.name(), c.name())));
        return j.toString();
    }

    /** @return the key columns in an ORDER BY list */
    String orderBy() {
        StringJoiner j = new StringJoiner(", ");
        for (int i = 0; i < keyLength; i++) {
            j.add(columns.get(i).name());
        }
        return j.toString();
    }

    /**
     * The source query, in key order, after a position when resuming.
     *
     * @param after whether to start after a key (the first key column's parameter, and {@code :k1})
     * @return the statement
     */
    Sql select(boolean after) {
        String where = filter == null ? "" : " WHERE (" + filter + ")";
        if (after) {
            String k0 = columns.get(0).name();
            String p0 = ":" + columns.get(0).param();
            String past = keyLength == 1 ? k0 + " > " + p0
                    : k0 + " > " + p0 + " OR (" + k0 + " = " + p0 + " AND " + columns.get(1).name() + " > :k1)";
            where += (where.isEmpty() ? " WHERE (" : " AND (") + past + ")";
        }
        return Sql.of("SELECT " + selectList() + " FROM " + table + where + " ORDER BY " + orderBy());
    }

    /** @return the query reading every row, in any order, for the checksum */
    Sql selectAll() {
        return Sql.of("SELECT " + selectList() + " FROM " + table + (filter == null ? "" : " WHERE " + filter));
    }

    /** @return a row count query */
    Sql count() {
        return Sql.of("SELECT COUNT(*) FROM " + table + (filter == null ? "" : " WHERE " + filter));
    }

    /**
     * Prepares and binds a statement of this part that takes no other parameter than the filter's.
     *
     * @param dialect the dialect of the side it runs on
     * @param sql     {@link #count()}, {@link #selectAll()} or {@link #select(boolean) select(false)}
     * @param c       a connection of that side
     * @return the statement, ready to execute
     * @throws SQLException from the driver
     */
    PreparedStatement prepare(Dialect dialect, Sql sql, java.sql.Connection c) throws SQLException {
        PreparedStatement ps = sql.prepare(c);
        return bindFilter(dialect.bind(sql, ps)).done();
    }

    /**
     * @param b a binder of a statement of this part
     * @return the binder with the filter's {@code :queue} set, if the statement has it
     * @throws SQLException from the driver
     */
    Sql.Binder bindFilter(Sql.Binder b) throws SQLException {
        return filter == null ? b : b.set("queue", queue);
    }

    /** @return the columns the target insert writes (optional longs stay NULL) */
    List<Column> written() {
        return columns.stream().filter(c -> c.type() != Type.OPTIONAL_LONG).toList();
    }

    /** @return the target insert */
    Sql insert() {
        StringJoiner names = new StringJoiner(", ");
        StringJoiner values = new StringJoiner(", ");
        for (Column c : written()) {
            names.add(c.name());
            values.add(":" + c.param());
        }
        return Sql.of("INSERT INTO " + table + " (" + names + ") VALUES (" + values + ")");
    }

    /**
     * Reads the current row.
     *
     * @param dialect the dialect of the database read, for key columns
     * @param rs      a result set of {@link #select} or {@link #selectAll}
     * @return the values, normalized by type
     * @throws SQLException from the driver
     */
    Object[] read(Dialect dialect, ResultSet rs) throws SQLException {
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
            int col = i + 1;
            row[i] = switch (columns.get(i).type()) {
                case KEY, OPTIONAL_KEY -> dialect.readKey(rs, col);
                case TEXT -> Jdbc.text(rs.getString(col));
                case OPTIONAL_TEXT -> {
                    String s = rs.getString(col);
                    yield s == null || s.isEmpty() ? null : s;
                }
                case INT -> rs.getInt(col);
                case LONG -> rs.getLong(col);
                case OPTIONAL_LONG, NULLABLE_LONG -> {
                    long v = rs.getLong(col);
                    yield rs.wasNull() ? null : (Object) v;
                }
            };
        }
        return row;
    }

    /**
     * Binds a (transformed) row to the insert.
     *
     * @param dialect the target's dialect, which binds key columns
     * @param insert  the insert
     * @param ps      a statement prepared from it
     * @param row     the row
     * @return the binder, with every parameter set
     * @throws SQLException from the driver
     */
    Sql.Binder bind(Dialect dialect, Sql insert, PreparedStatement ps, Object[] row) throws SQLException {
        Sql.Binder b = dialect.bind(insert, ps);
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            switch (c.type()) {
                case KEY, OPTIONAL_KEY, TEXT, OPTIONAL_TEXT -> b.set(c.param(), (String) row[i]);
                case INT -> b.setInt(c.param(), (Integer) row[i]);
                case LONG -> b.set(c.param(), (Long) row[i]);
                case NULLABLE_LONG -> b.setNullable(c.param(), (Long) row[i]);
                case OPTIONAL_LONG -> {
                    // not written
                }
            }
        }
        return b;
    }

    /**
     * Binds a key position to {@link #select(boolean) select(true)}.
     *
     * @param dialect the source's dialect, which binds key columns
     * @param select  the query
     * @param ps      a statement prepared from it
     * @param key0    the first key column's value (String or Long)
     * @param key1    the second key column's value, for two-column keys
     * @return the binder
     * @throws SQLException from the driver
     */
    Sql.Binder bindAfter(Dialect dialect, Sql select, PreparedStatement ps, Object key0, Long key1)
            throws SQLException {
        Sql.Binder b = bindFilter(dialect.bind(select, ps));
        String p0 = columns.get(0).param();
        if (key0 instanceof String s) {
            b.set(p0, s);
        } else {
            b.set(p0, ((Number) key0).longValue());
        }
        if (keyLength == 2) {
            if (columns.get(1).type() == Type.INT) {
                b.setInt("k1", key1.intValue());
            } else {
                b.set("k1", key1.longValue());
            }
        }
        return b;
    }

    /** An order-independent checksum: the sum of every row's 64-bit hash, and the row count. */
    static final class Checksum {
        private final MessageDigest digest;
        private final int stateColumn;
        private long sum;
        private long rows;
        private long dead;

        /**
         * @param stateColumn the index of a jobs table's state column, whose dead jobs {@link #dead()} counts, or -1
         */
        Checksum(int stateColumn) {
            this.stateColumn = stateColumn;
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
            }
        }

        /**
         * Adds a row: each value with its type and length, so no two different rows share a text form.
         *
         * @param row the (transformed) row
         */
        void add(Object[] row) {
            if (stateColumn >= 0 && Integer.valueOf(WorkTables.DEAD).equals(row[stateColumn])) {
                dead++;
            }
            StringBuilder b = new StringBuilder();
            for (Object v : row) {
                if (v == null) {
                    b.append("N;");
                } else {
                    String s = v.toString();
                    b.append(v instanceof String ? 'S' : 'L').append(s.length()).append(':').append(s).append(';');
                }
            }
            byte[] h = digest.digest(b.toString().getBytes(StandardCharsets.UTF_8));
            long x = 0;
            for (int i = 0; i < 8; i++) {
                x = (x << 8) | (h[i] & 0xff);
            }
            sum += x;
            rows++;
        }

        /** @return how many of the rows were dead jobs */
        long dead() {
            return dead;
        }

        /** @return how many rows were added */
        long rows() {
            return rows;
        }

        /** @return the checksum as 16 hexadecimal digits */
        String hex() {
            return String.format("%016x", sum);
        }
    }

    /**
     * A checkpoint position: the last key copied.
     *
     * @param row a row
     * @return its key values
     */
    List<Object> key(Object[] row) {
        List<Object> key = new ArrayList<>(keyLength);
        for (int i = 0; i < keyLength; i++) {
            key.add(row[i]);
        }
        return key;
    }
}
