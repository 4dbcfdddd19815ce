package dev.rowqueue.h2;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The source articles' single statement on H2 ("method three" of Baron Schwartz's "How to implement a queue in SQL",
 * {@code MERGE}): the next sequence number is {@code MAX(seq) + 1} of the group, read inside the {@code MERGE} that
 * writes slot {@code seq mod capacity}. There is no head row, so this is correct only with one writer per group at a
 * time, and a cleared group starts numbering again at 1.
 */
final class H2SingleWriterRingStore extends StandardRingStore {

    private final Sql merge;

    H2SingleWriterRingStore(Dialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        String now = dialect.nowMillis();
        merge = Sql.of("SELECT seq FROM FINAL TABLE (MERGE INTO " + t.entries() + " e USING (SELECT CAST(:grp AS "
                + "VARCHAR(" + Dialect.KEY_LENGTH + ")) AS grp, COALESCE(MAX(seq), 0) + 1 AS seq FROM " + t.entries()
                + " WHERE grp = :grp) s ON (e.grp = s.grp AND e.slot = MOD(s.seq, :cap))"
                + " WHEN MATCHED THEN UPDATE SET seq = s.seq, payload = :payload, pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                + " VALUES (s.grp, MOD(s.seq, :cap), s.seq, :payload, " + now + "))");
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        SqlOp<long[]> body = c -> {
            long[] seqs = new long[payloads.size()];
            for (int i = 0; i < seqs.length; i++) {
                seqs[i] = mergeOne(c, group, payloads.get(i));
            }
            return seqs;
        };
        return payloads.size() == 1 ? SqlOp.statement(body) : SqlOp.transaction(body);
    }

    private long mergeOne(Connection c, String group, String payload) throws SQLException {
        try (PreparedStatement ps = merge.prepare(c)) {
            dialect.bind(merge, ps).set("grp", group).setInt("cap", capacity).set("payload", payload).done();
            return Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("MERGE returned no sequence number"));
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                throw exhausted(group, Long.MAX_VALUE, 1);
            }
            throw e;
        }
    }
}
