package dev.rowqueue.oracle;

import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The safe ring on Oracle. The head row is bumped by a PL/SQL block: {@code UPDATE ... RETURNING last_seq INTO},
 * and if no row matched, {@code INSERT} of a new head row; when that raises ORA-00001 ({@code DUP_VAL_ON_INDEX})
 * because another producer created the row first (our INSERT waited for its commit), the block updates that row.
 * No row at all means the group's numbers are exhausted. The bump locks the head row, which serializes the group's
 * producers until commit.
 *
 * <p>A push of one payload is one block that also writes the slot with {@code MERGE}: one round trip, committed by
 * the driver in auto-commit mode; Oracle undoes a failed top-level call as a whole. A push of several payloads (or
 * one payload into a CLOB column, which a PL/SQL bind cannot carry) bumps the head with the block, then writes the
 * slots with a batched {@code MERGE} ({@link #statements}), in one transaction.
 */
final class OracleRing implements RingStatements.Bump, RingStatements.Push {

    private final OracleDialect dialect;
    private final PlSqlCall bump;
    private final PlSqlCall pushOne;

    private OracleRing(OracleDialect dialect, RingTables t) {
        this.dialect = dialect;
        String now = dialect.nowMillis();
        String update = "UPDATE " + t.heads() + " SET last_seq = last_seq + :n WHERE grp = :grp AND last_seq <= :max"
                + " RETURNING last_seq INTO v_last;";
        String bumpHead = update + " IF SQL%ROWCOUNT = 0 THEN BEGIN INSERT INTO " + t.heads()
                + " (grp, last_seq) VALUES (:grp, :n); v_last := :n; EXCEPTION WHEN DUP_VAL_ON_INDEX THEN " + update
                + " END; END IF;";
        String writeSlot = "MERGE INTO " + t.entries() + " e USING (SELECT :grp AS grp, MOD(v_last, :cap) AS slot"
                + " FROM dual) s ON (e.grp = s.grp AND e.slot = s.slot) WHEN MATCHED THEN UPDATE SET e.seq = v_last,"
                + " e.payload = :payload, e.pushed_ms = " + now + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq,"
                + " payload, pushed_ms) VALUES (s.grp, s.slot, v_last, :payload, " + now + ");";
        bump = new PlSqlCall(Sql.of("DECLARE v_last NUMBER(19); BEGIN " + bumpHead + " :last := v_last; END;"), "last");
        pushOne = new PlSqlCall(Sql.of("DECLARE v_last NUMBER(19); BEGIN " + bumpHead
                + " IF v_last IS NOT NULL THEN " + writeSlot + " END IF; :last := v_last; END;"), "last");
    }

    /**
     * @param dialect the dialect
     * @param t       the ring's tables
     * @return the safe ring's statements: the blocks, and the slots' {@code MERGE}, one batch for several
     */
    static RingStatements statements(OracleDialect dialect, RingTables t) {
        String now = dialect.nowMillis();
        OracleRing ring = new OracleRing(dialect, t);
        RingStatements statements = RingStatements.PORTABLE.withBump(ring).withUpsert(Sql.of("MERGE INTO "
                + t.entries() + " e USING (SELECT :grp AS grp, :slot AS slot FROM dual) s ON (e.grp = s.grp AND e.slot"
                + " = s.slot) WHEN MATCHED THEN UPDATE SET e.seq = :seq, e.payload = :payload, e.pushed_ms = " + now
                + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms) VALUES (s.grp, s.slot, :seq,"
                + " :payload, " + now + ")"));
        return dialect.payload().fitsPlSql() ? statements.withPush(ring) : statements;
    }

    /** One payload: the block that bumps the head row and merges the slot; several: the steps. */
    @Override
    public SqlOp<long[]> push(RingStatements.Ring ring, String group, List<String> payloads, SqlOp<long[]> steps) {
        if (payloads.size() != 1) {
            return steps;
        }
        return SqlOp.statement(c -> {
            long seq = pushOne.call(c, dialect, b -> b.set("n", 1).set("grp", group).set("max", Long.MAX_VALUE - 1)
                    .setInt("cap", ring.capacity()).set("payload", payloads.get(0)))
                    .orElseThrow(() -> ring.exhausted(group, Long.MAX_VALUE, 1));
            return new long[] {seq};
        });
    }

    @Override
    public long bump(Connection c, RingStatements.Ring ring, String group, int n) throws SQLException {
        OptionalLong last = bump.call(c, dialect, b -> b.set("n", n).set("grp", group).set("max", Long.MAX_VALUE - n));
        return last.orElseThrow(() -> ring.exhausted(group, Long.MAX_VALUE - n + 1, n));
    }
}
