package dev.rowqueue.sqlite;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The safe ring on SQLite: the portable push (one transaction: bump the head row, write the slots), each step one
 * upsert. The transaction begins {@code IMMEDIATE} (see {@link SqliteDialect#beginTransaction}), so it holds the
 * database's write lock from its start and no other producer, in this process or another, runs between the head
 * row's number and the slot it numbers:
 *
 * <pre>
 * INSERT INTO &lt;ring&gt;_head (grp, last_seq) VALUES (:grp, :n)
 *   ON CONFLICT (grp) DO UPDATE SET last_seq = last_seq + excluded.last_seq WHERE last_seq &lt;= :max
 *   RETURNING last_seq
 * INSERT INTO &lt;ring&gt; (grp, slot, seq, payload, pushed_ms) VALUES (:grp, :slot, :seq, :payload, :now)
 *   ON CONFLICT (grp, slot) DO UPDATE SET seq = excluded.seq, payload = excluded.payload,
 *   pushed_ms = excluded.pushed_ms
 * </pre>
 *
 * A push of several payloads writes its slots with one batch of the second statement. When the numbers would pass
 * {@link Long#MAX_VALUE}, the guard leaves the head row alone, nothing is returned, and the portable path reports the
 * exhausted sequence.
 */
final class SqliteRingStore extends StandardRingStore {

    private final Sql bump;
    private final Sql upsert;
    private final Sql newestByHead;

    SqliteRingStore(Dialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        bump = Sql.of("INSERT INTO " + t.heads() + " (grp, last_seq) VALUES (:grp, :n) ON CONFLICT (grp) DO UPDATE"
                + " SET last_seq = last_seq + excluded.last_seq WHERE last_seq <= :max RETURNING last_seq");
        upsert = Sql.of("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) VALUES (:grp, :slot,"
                + " :seq, :payload, " + dialect.nowMillis() + ") ON CONFLICT (grp, slot) DO UPDATE SET"
                + " seq = excluded.seq, payload = excluded.payload, pushed_ms = excluded.pushed_ms");
        String last = "(SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)";
        newestByHead = Sql.of("WITH RECURSIVE s(seq, k) AS (SELECT " + last + ", 1 UNION ALL SELECT seq - 1, k + 1"
                + " FROM s WHERE k < :limit AND seq > 1) SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries()
                + " WHERE grp = :grp AND slot IN (SELECT seq % :cap FROM s) AND seq > " + last + " - :limit"
                + " ORDER BY seq DESC");
    }

    /**
     * The slots of the last {@code :limit} numbers, counted down from the head row's last number by a recursive
     * common table expression: a lookup of the primary key per slot instead of a sort of the whole group, since
     * these rings have no {@code (grp, seq)} index ({@link SqliteDialect#ddl()}).
     */
    @Override
    protected Sql newestByHead() {
        return newestByHead;
    }

    @Override
    protected long bumpHead(Connection c, String group, int n) throws SQLException {
        return bumpHeadWith(c, bump, group, n);
    }

    @Override
    protected void writeSlots(Connection c, String group, long firstSeq, List<String> payloads) throws SQLException {
        upsertSlots(c, upsert, group, firstSeq, payloads);
    }
}
