package dev.rowqueue.h2;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The safe ring on H2: the head row is bumped and read in one statement ({@code FINAL TABLE (UPDATE ...)}), and the
 * slots are written with one batched {@code MERGE ... KEY (grp, slot)}. Two statements per push, in one transaction.
 */
final class H2RingStore extends StandardRingStore {

    private final Sql bump;
    private final Sql merge;

    H2RingStore(Dialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        bump = Sql.of("SELECT last_seq FROM FINAL TABLE (UPDATE " + t.heads()
                + " SET last_seq = last_seq + :n WHERE grp = :grp AND last_seq <= :max)");
        merge = Sql.of("MERGE INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms) KEY (grp, slot)"
                + " VALUES (:grp, :slot, :seq, :payload, " + dialect.nowMillis() + ")");
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
