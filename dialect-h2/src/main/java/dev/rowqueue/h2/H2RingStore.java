package dev.rowqueue.h2;

import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The safe ring on H2. A push of one payload, the common case, is one statement run in auto-commit mode: a
 * {@code MERGE} of the head row (bumping it, or creating it with 1) whose new number feeds, through a data change
 * table ({@code FINAL TABLE}), a {@code MERGE} of the slot:
 *
 * <pre>
 * SELECT seq FROM FINAL TABLE (MERGE INTO &lt;ring&gt; e USING (SELECT grp, last_seq FROM FINAL TABLE (
 *     MERGE INTO &lt;ring&gt;_head h USING (VALUES (:grp)) v(grp) ON h.grp = v.grp
 *     WHEN MATCHED AND h.last_seq &lt; 2^63-1 THEN UPDATE SET last_seq = h.last_seq + 1
 *     WHEN NOT MATCHED THEN INSERT VALUES (v.grp, 1))) u
 *   ON e.grp = u.grp AND e.slot = MOD(u.last_seq, :cap)
 *   WHEN MATCHED THEN UPDATE SET seq = u.last_seq, payload = :payload, pushed_ms = :now
 *   WHEN NOT MATCHED THEN INSERT VALUES (u.grp, MOD(u.last_seq, :cap), u.last_seq, :payload, :now))
 * </pre>
 *
 * <p>The head row's lock, taken by its update, is held until the statement commits, so producers of one group take
 * turns and each writes the slot of its own number. Two producers creating one group's head row at once: the second
 * fails with a duplicate key and is run again, finding the row. A push of several payloads bumps the head row and
 * reads it in one statement ({@code FINAL TABLE (UPDATE ...)}), then writes the slots with one batched
 * {@code MERGE ... KEY (grp, slot)}, in one transaction.
 */
final class H2RingStore extends StandardRingStore {

    private final Sql bump;
    private final Sql merge;
    private final Sql pushOne;
    private final Sql newestByHead;

    H2RingStore(H2Dialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        String now = dialect.nowMillis();
        bump = Sql.of("SELECT last_seq FROM FINAL TABLE (UPDATE " + t.heads()
                + " SET last_seq = last_seq + :n WHERE grp = :grp AND last_seq <= :max)");
        merge = Sql.of("MERGE INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) KEY (grp, slot)"
                + " VALUES (:grp, :slot, :seq, :payload, " + now + ")");
        String head = "MERGE INTO " + t.heads() + " h USING (VALUES (CAST(:grp AS " + dialect.typeOf(Schema.Type.KEY)
                + "))) AS v(grp) ON h.grp = v.grp WHEN MATCHED AND h.last_seq < " + Long.MAX_VALUE
                + " THEN UPDATE SET last_seq = h.last_seq + 1 WHEN NOT MATCHED THEN INSERT (grp, last_seq)"
                + " VALUES (v.grp, 1)";
        String slot = "CAST(MOD(u.last_seq, :cap) AS INTEGER)";
        pushOne = Sql.of("SELECT seq FROM FINAL TABLE (MERGE INTO " + t.entries() + " e USING (SELECT grp, last_seq"
                + " FROM FINAL TABLE (" + head + ")) AS u ON e.grp = u.grp AND e.slot = " + slot
                + " WHEN MATCHED THEN UPDATE SET seq = u.last_seq, payload = :payload, pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (u.grp, " + slot
                + ", u.last_seq, :payload, " + now + "))");
        String last = "(SELECT last_seq FROM " + t.heads() + " WHERE grp = :grp)";
        newestByHead = Sql.of("SELECT " + Jdbc.ENTRY_COLUMNS + " FROM " + t.entries() + " WHERE grp = :grp"
                + " AND slot IN (SELECT CAST(MOD(X, :cap) AS INTEGER) FROM SYSTEM_RANGE(GREATEST(" + last
                + " - :limit + 1, 1), " + last + ")) AND seq > " + last + " - :limit ORDER BY seq DESC");
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        if (payloads.size() != 1) {
            return super.push(group, payloads);
        }
        String payload = payloads.get(0);
        return SqlOp.statement(c -> {
            OptionalLong seq;
            try (PreparedStatement ps = pushOne.prepare(c)) {
                dialect.bind(pushOne, ps).set("grp", group).setInt("cap", capacity).set("payload", payload).done();
                seq = Jdbc.firstLong(ps);
            }
            if (seq.isEmpty()) { // the head row exists and is at Long.MAX_VALUE: nothing was written
                throw exhausted(group, Long.MAX_VALUE, 1);
            }
            return new long[] {seq.getAsLong()};
        }).retryingDuplicateKey();
    }

    /**
     * The slots of the last {@code :limit} numbers, from {@code SYSTEM_RANGE} over the head row's last number: a
     * lookup of the primary key per slot instead of a sort of the whole group.
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
        try (PreparedStatement ps = merge.prepare(c)) {
            int from = firstWritten(payloads.size());
            for (int i = from; i < payloads.size(); i++) {
                long seq = firstSeq + i;
                Sql.Binder b = dialect.bind(merge, ps).set("grp", group).setInt("slot", slot(seq)).set("seq", seq)
                        .set("payload", payloads.get(i));
                if (payloads.size() - from == 1) {
                    b.done();
                    ps.executeUpdate();
                } else {
                    b.addBatch();
                }
            }
            if (payloads.size() - from > 1) {
                ps.executeBatch();
            }
        }
    }
}
