package dev.rowqueue.postgres;

import dev.rowqueue.spi.Jdbc;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.Sql;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.StandardRingStore;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The seeds' PostgreSQL statement ({@link dev.rowqueue.RingStrategy#SINGLE_WRITER}): the next number is
 * {@code COALESCE(MAX(seq), 0) + 1} of the group, read inside the {@code INSERT ... SELECT ... ON CONFLICT (grp, slot)
 * DO UPDATE} that writes slot {@code seq mod capacity}. One statement, no head row.
 *
 * <p><strong>One writer per group at a time only.</strong> Two concurrent pushes read the same {@code MAX(seq)}: at
 * READ COMMITTED the second one's conflict turns into an update of the first one's row (a silently lost push), or
 * fails with a unique violation on {@code (grp, seq)}. A cleared group starts numbering again at 1.
 */
final class PostgresSingleWriterRingStore extends StandardRingStore {

    private final Sql push;

    PostgresSingleWriterRingStore(PostgresDialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        push = Sql.of("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms)"
                + " SELECT :grp, CAST(MOD(s.max_seq + p.ord, :cap) AS INTEGER), s.max_seq + p.ord, p.payload, "
                + dialect.nowMillis() + " FROM (SELECT COALESCE(MAX(seq), 0) AS max_seq FROM " + t.entries()
                + " WHERE grp = :grp) s CROSS JOIN " + PgArrays.payloadRows("payloads") + " WHERE p.ord > :skip"
                + " ON CONFLICT (grp, slot) DO UPDATE SET seq = EXCLUDED.seq, payload = EXCLUDED.payload,"
                + " pushed_ms = EXCLUDED.pushed_ms RETURNING seq");
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        int n = payloads.size();
        return SqlOp.statement(c -> {
            List<Long> written;
            try (PreparedStatement ps = push.prepare(c)) {
                dialect.bind(push, ps).set("grp", group).setInt("cap", capacity)
                        .setArray("payloads", PgArrays.texts(c, payloads)).setInt("skip", firstWritten(n)).done();
                written = Jdbc.longs(ps);
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                    throw exhausted(group, Long.MAX_VALUE, n);
                }
                throw e;
            }
            long last = written.stream().mapToLong(Long::longValue).max()
                    .orElseThrow(() -> new SQLException("the single-writer push returned no sequence number"));
            return sequence(last - n + 1, n);
        });
    }
}
