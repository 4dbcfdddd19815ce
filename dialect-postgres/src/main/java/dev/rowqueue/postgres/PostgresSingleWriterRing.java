package dev.rowqueue.postgres;

import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;

import java.sql.SQLException;
import java.util.List;

/**
 * The source articles' single statement in PostgreSQL's form ({@link dev.rowqueue.RingStrategy#SINGLE_WRITER}): the
 * next number is {@code COALESCE(MAX(seq), 0) + 1} of the group, read inside the {@code INSERT ... SELECT ... ON
 * CONFLICT (grp, slot) DO UPDATE} that writes slot {@code seq mod capacity}. One statement, no head row.
 *
 * <p><strong>One writer per group at a time only.</strong> Two concurrent pushes read the same {@code MAX(seq)}: at
 * READ COMMITTED the second one's conflict turns into an update of the first one's row (a silently lost push), or
 * fails with a unique violation on {@code (grp, seq)}. A cleared group starts numbering again at 1.
 */
final class PostgresSingleWriterRing implements RingStatements.Push {

    private final Sql push;

    PostgresSingleWriterRing(PostgresDialect dialect, RingTables t) {
        push = Sql.of("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms)"
                + " SELECT :grp, CAST(MOD(s.max_seq + p.ord, :cap) AS INTEGER), s.max_seq + p.ord, p.payload, "
                + dialect.nowMillis() + " FROM (SELECT COALESCE(MAX(seq), 0) AS max_seq FROM " + t.entries()
                + " WHERE grp = :grp) s CROSS JOIN " + PgArrays.payloadRows("payloads") + " WHERE p.ord > :skip"
                + " ON CONFLICT (grp, slot) DO UPDATE SET seq = EXCLUDED.seq, payload = EXCLUDED.payload,"
                + " pushed_ms = EXCLUDED.pushed_ms RETURNING seq");
    }

    /** Only the last {@code capacity} payloads are written; the last one always is, and its number ends the push. */
    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads, SqlOp<long[]> steps) {
        int n = payloads.size();
        return SqlOp.statement(c -> {
            List<Long> returned = SeqReturning.run(c, ring, push, group, payloads,
                    b -> b.setInt("cap", ring.capacity()).setInt("skip", ring.firstWritten(n)));
            long last = returned.stream().mapToLong(Long::longValue).max()
                    .orElseThrow(() -> new SQLException("the single-writer push returned no sequence number"));
            return RingStatements.Ring.sequence(last - n + 1, n);
        });
    }
}
