package dev.rowqueue.db2;

import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The safe ring on Db2: the head row is bumped and read in one statement,
 * {@code SELECT last_seq FROM FINAL TABLE (UPDATE ... )}, which locks it until commit; a missing head row is
 * inserted under a savepoint and a lost creation race (SQLCODE -803) updates the row the winner created (the
 * portable path, {@link StandardRingStore#bumpHead}). The slots are written with one batched {@code MERGE}. Two
 * statements per push, in one transaction at cursor stability.
 */
final class Db2RingStore extends StandardRingStore {

    private final Sql bump;
    private final Sql merge;

    Db2RingStore(Db2Dialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        bump = Sql.of("SELECT last_seq FROM FINAL TABLE (UPDATE " + t.heads()
                + " SET last_seq = last_seq + :n WHERE grp = :grp AND last_seq <= :max)");
        String now = dialect.nowMillis();
        merge = Sql.of("MERGE INTO " + t.entries() + " e USING (VALUES (CAST(:grp AS " + Db2Keys.COLUMN_TYPE + "),"
                + " CAST(:slot AS INTEGER), CAST(:seq AS BIGINT), CAST(:payload AS " + dialect.typeOf(Schema.Type.PAYLOAD) + ")))"
                + " AS s (grp, slot, seq, payload) ON e.grp = s.grp AND e.slot = s.slot"
                + " WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = s.payload, pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                + " VALUES (s.grp, s.slot, s.seq, s.payload, " + now + ")");
    }

    /** @return the statements this store renders, for tests */
    List<Sql> statements() {
        return List.of(bump, merge);
    }

    @Override
    protected long bumpHead(Connection c, String group, int n) throws SQLException {
        return bumpHeadWith(c, bump, group, n);
    }

    @Override
    protected void writeSlots(Connection c, String group, long firstSeq, List<String> payloads) throws SQLException {
        upsertSlots(c, merge, group, firstSeq, payloads);
    }
}
