package dev.rowqueue.postgres;

import dev.rowqueue.support.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The {@link dev.rowqueue.RingStrategy#SAFE safe} ring's push in one statement, for one payload or a batch:
 *
 * <pre>{@code
 * WITH head AS (INSERT INTO <ring>_head AS h (grp, last_seq) VALUES (:grp, :n)
 *               ON CONFLICT (grp) DO UPDATE SET last_seq = h.last_seq + EXCLUDED.last_seq
 *               WHERE h.last_seq <= :max RETURNING last_seq),
 *      slots AS (INSERT INTO <ring> (grp, slot, seq, payload, pushed_ms)
 *                SELECT :grp, (last_seq - :n + ord) mod :cap, last_seq - :n + ord, payload, <now>
 *                FROM head, unnest(:payloads) WITH ORDINALITY ... WHERE ord > :skip
 *                ON CONFLICT (grp, slot) DO UPDATE SET seq = ..., payload = ..., pushed_ms = ...)
 * SELECT last_seq FROM head
 * }</pre>
 *
 * The head row's upsert is atomic in READ COMMITTED (a new group's first push inserts {@code n}; racing pushes wait
 * for its row lock and then add their own count), and the lock it takes serializes the group's producers until the
 * statement commits, so numbers are consecutive and no slot is written by two producers at once. The slot upsert may
 * meet a row committed after the statement's snapshot; {@code ON CONFLICT DO UPDATE} updates it all the same. A push
 * of more than {@code capacity} payloads writes only its last {@code capacity}. When the numbers would pass
 * {@link Long#MAX_VALUE}, the guard leaves the head row alone, the CTE yields no row and nothing is written.
 *
 * <p>A push of one payload, the common case, binds it as a plain parameter instead of an array: no array to build on
 * the client and to unnest on the server.
 */
final class PostgresRing implements RingStatements.Push {

    private final PostgresDialect dialect;
    private final RingTables t;
    private final Sql push;
    private final Sql pushOne;
    private final Sql lastSeq;

    private PostgresRing(PostgresDialect dialect, RingTables tables) {
        this.dialect = dialect;
        this.t = tables;
        push = Sql.of("WITH head AS (INSERT INTO " + t.heads() + " AS h (grp, last_seq) VALUES (:grp, :n)"
                + " ON CONFLICT (grp) DO UPDATE SET last_seq = h.last_seq + EXCLUDED.last_seq"
                + " WHERE h.last_seq <= :max RETURNING last_seq),"
                + " slots AS (INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms)"
                + " SELECT :grp, CAST(MOD(head.last_seq - :n + p.ord, :cap) AS INTEGER), head.last_seq - :n + p.ord,"
                + " p.payload, " + dialect.nowMillis() + " FROM head CROSS JOIN " + PgArrays.payloadRows("payloads")
                + " WHERE p.ord > :skip"
                + " ON CONFLICT (grp, slot) DO UPDATE SET seq = EXCLUDED.seq, payload = EXCLUDED.payload,"
                + " pushed_ms = EXCLUDED.pushed_ms)"
                + " SELECT last_seq FROM head");
        pushOne = Sql.of("WITH head AS (INSERT INTO " + t.heads() + " AS h (grp, last_seq) VALUES (:grp, 1)"
                + " ON CONFLICT (grp) DO UPDATE SET last_seq = h.last_seq + 1"
                + " WHERE h.last_seq < " + Long.MAX_VALUE + " RETURNING last_seq),"
                + " slots AS (INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms)"
                + " SELECT :grp, CAST(MOD(head.last_seq, :cap) AS INTEGER), head.last_seq, :payload, "
                + dialect.nowMillis() + " FROM head"
                + " ON CONFLICT (grp, slot) DO UPDATE SET seq = EXCLUDED.seq, payload = EXCLUDED.payload,"
                + " pushed_ms = EXCLUDED.pushed_ms)"
                + " SELECT last_seq FROM head");
        lastSeq = Sql.of("SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp");
    }

    /**
     * @param dialect the dialect
     * @param tables  the ring's tables
     * @return the safe ring's statements: this push, and the newest entries through the head row
     */
    static RingStatements statements(PostgresDialect dialect, RingTables tables) {
        return RingStatements.PORTABLE.withPush(new PostgresRing(dialect, tables))
                .withNewestByHead(newestByHead(tables));
    }

    /**
     * The newest entries without an index on {@code seq} (this strategy's tables have none: see
     * {@link PostgresDialect#ddl()}): the slots of the last {@code :limit} numbers, from {@code generate_series},
     * which the primary key finds directly. Reading whole rings, or the oldest entries, scans the group's rows by the
     * primary key and sorts them.
     */
    private static Sql newestByHead(RingTables t) {
        return Sql.of("WITH h AS (SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)"
                + " SELECT e." + Jdbc.ENTRY_COLUMNS.replace(", ", ", e.") + " FROM " + t.entries() + " e CROSS JOIN h"
                + " WHERE e.grp = :grp AND e.slot = ANY(ARRAY(SELECT CAST(MOD(s.seq, :cap) AS INTEGER) FROM h CROSS JOIN"
                + " generate_series(GREATEST(h.last_seq - :limit + 1, 1), h.last_seq) AS s(seq)))"
                + " AND e.seq > h.last_seq - :limit ORDER BY e.seq DESC");
    }

    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads, SqlOp<long[]> steps) {
        int n = payloads.size();
        return SqlOp.statement(c -> {
            OptionalLong last;
            if (n == 1) {
                try (PreparedStatement ps = pushOne.prepare(c)) {
                    dialect.bind(pushOne, ps).set("grp", group).setInt("cap", ring.capacity())
                            .set("payload", payloads.get(0)).done();
                    last = Jdbc.firstLong(ps);
                }
            } else {
                try (PreparedStatement ps = push.prepare(c)) {
                    dialect.bind(push, ps).set("grp", group).set("n", n).set("max", Long.MAX_VALUE - n)
                            .setInt("cap", ring.capacity()).setArray("payloads", PgArrays.texts(c, payloads))
                            .setInt("skip", ring.firstWritten(n)).done();
                    last = Jdbc.firstLong(ps);
                }
            }
            if (last.isEmpty()) {
                throw notPushed(c, ring, group, n);
            }
            return RingStatements.Ring.sequence(last.getAsLong() - n + 1, n);
        });
    }

    /** The push wrote nothing: the group's numbers are exhausted (the only way its head row is left alone). */
    private RuntimeException notPushed(Connection c, RingStatements.Ring ring, String group, int n)
            throws SQLException {
        OptionalLong last;
        try (PreparedStatement ps = lastSeq.prepare(c)) {
            dialect.bind(lastSeq, ps).set("grp", group).done();
            last = Jdbc.firstLong(ps);
        }
        if (last.isPresent() && last.getAsLong() > Long.MAX_VALUE - n) {
            return ring.exhausted(group, last.getAsLong(), n);
        }
        return new IllegalStateException("push into ring " + t.queue() + ", group '" + group
                + "' wrote nothing although its head row allows " + n + " more numbers (" + last + ")");
    }
}
