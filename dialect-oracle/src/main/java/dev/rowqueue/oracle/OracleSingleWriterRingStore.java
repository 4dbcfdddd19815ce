package dev.rowqueue.oracle;

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
 * Seed 003's "method three" on Oracle, the {@link dev.rowqueue.RingStrategy#SINGLE_WRITER} strategy: one
 * {@code MERGE} per payload reads the group's {@code MAX(seq) + 1} in its source and writes slot
 * {@code MOD(seq, capacity)}. Oracle's {@code MERGE} returns no rows, so the push reads the group's last sequence
 * number afterwards, in the same transaction. There is no head row: correct only with one writer per group at a
 * time, and a cleared group starts again at 1. A number past {@code Long.MAX_VALUE} violates the column's range
 * check (ORA-02290) and is reported as exhaustion, with nothing written.
 */
final class OracleSingleWriterRingStore extends StandardRingStore {

    private final Sql merge;
    private final Sql last;

    OracleSingleWriterRingStore(OracleDialect dialect, RingTables tables, int capacity) {
        super(dialect, tables, capacity);
        String now = dialect.nowMillis();
        merge = Sql.of("MERGE INTO " + t.entries() + " e USING (SELECT :grp AS grp, NVL(MAX(seq), 0) + 1 AS seq FROM "
                + t.entries() + " WHERE grp = :grp) s ON (e.grp = s.grp AND e.slot = MOD(s.seq, :cap))"
                + " WHEN MATCHED THEN UPDATE SET e.seq = s.seq, e.payload = :payload, e.pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                + " VALUES (s.grp, MOD(s.seq, :cap), s.seq, :payload, " + now + ")");
        last = Sql.of("SELECT MAX(seq) FROM " + t.entries() + " WHERE grp = :grp");
    }

    /** @return the statements this store renders, for tests */
    List<Sql> statements() {
        return List.of(merge, last);
    }

    @Override
    public SqlOp<long[]> push(String group, List<String> payloads) {
        return SqlOp.transaction(c -> {
            try (PreparedStatement ps = merge.prepare(c)) {
                for (String payload : payloads) {
                    dialect.bind(merge, ps).set("grp", group).setInt("cap", capacity).set("payload", payload).done();
                    ps.executeUpdate();
                }
            } catch (SQLException e) {
                if (dialect.classify(e) == SqlErrorKind.NUMERIC_OVERFLOW) {
                    throw exhausted(group, Long.MAX_VALUE, 1);
                }
                throw e;
            }
            long newest;
            try (PreparedStatement ps = last.prepare(c)) {
                dialect.bind(last, ps).set("grp", group).done();
                newest = Jdbc.firstLong(ps).orElseThrow(() -> new SQLException("MERGE left no entry in group"));
            }
            return sequence(newest - payloads.size() + 1, payloads.size());
        });
    }
}
