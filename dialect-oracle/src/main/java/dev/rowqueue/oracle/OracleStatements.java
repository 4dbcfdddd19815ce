package dev.rowqueue.oracle;

import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.CounterStatements;
import dev.rowqueue.support.RingStatements;
import dev.rowqueue.support.Sql;
import dev.rowqueue.support.StatementSets;

/** Oracle's statements for rings and counters: PL/SQL blocks and {@code MERGE}. */
final class OracleStatements implements StatementSets {

    private final OracleDialect dialect;

    OracleStatements(OracleDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * The safe ring is {@link OracleRing}. The single-writer ring is the single {@code MERGE} of "How to implement a
     * queue in SQL": the source reads the group's {@code MAX(seq) + 1}, the target row is slot
     * {@code MOD(seq, capacity)}. Oracle's MERGE returns nothing, so the store reads the last number afterwards; a
     * number past {@code Long.MAX_VALUE} violates the range check of {@code seq} (ORA-02290).
     */
    @Override
    public RingStatements ring(RingTables t, RingStrategy strategy, String now) {
        return switch (strategy) {
            case SAFE -> OracleRing.statements(dialect, t);
            case SINGLE_WRITER -> RingStatements.PORTABLE.withSingleWriterMerge(Sql.of("MERGE INTO " + t.entries()
                    + " e USING (SELECT :grp AS grp, NVL(MAX(seq), 0) + 1 AS seq FROM " + t.entries() + " WHERE grp ="
                    + " :grp) s ON (e.grp = s.grp AND e.slot = MOD(s.seq, :cap))"
                    + " WHEN MATCHED THEN UPDATE SET e.seq = s.seq, e.payload = :payload, e.pushed_ms = " + now
                    + " WHEN NOT MATCHED THEN INSERT (grp, slot, seq, payload, pushed_ms)"
                    + " VALUES (s.grp, MOD(s.seq, :cap), s.seq, :payload, " + now + ")"));
            case TRIGGER -> null;
        };
    }

    /**
     * Counters. An increment is one PL/SQL block, one round trip: a guarded
     * {@code UPDATE ... RETURNING counter_value INTO}; if no row matched, an {@code INSERT}; if that raises ORA-00001
     * (the counter exists but is out of the guard's range, or a concurrent caller created it and committed while our
     * INSERT waited), the guarded UPDATE once more. A NULL result means the increment would leave the 64-bit range
     * and nothing changed. {@code set} is one {@code MERGE}, retried if a concurrent creator wins (ORA-00001).
     */
    @Override
    public CounterStatements counters(CounterTable t) {
        String update = "UPDATE " + t.table() + " SET counter_value = counter_value + :delta WHERE counter_key = :key"
                + " AND counter_value BETWEEN :lo AND :hi RETURNING counter_value INTO v_value;";
        PlSqlCall add = new PlSqlCall(Sql.of("DECLARE v_value NUMBER(19); BEGIN " + update + " IF SQL%ROWCOUNT = 0"
                + " THEN BEGIN INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, :delta);"
                + " v_value := :delta; EXCEPTION WHEN DUP_VAL_ON_INDEX THEN " + update + " END; END IF;"
                + " :result := v_value; END;"), "result");
        return CounterStatements.PORTABLE
                .withAdd((c, key, delta) -> {
                    long[] range = CounterStatements.guard(delta);
                    return add.call(c, dialect, b -> b.set("delta", delta).set("key", key).set("lo", range[0])
                            .set("hi", range[1]));
                })
                .withSet(Sql.of("MERGE INTO " + t.table() + " c USING (SELECT :key AS k, :value AS v FROM dual) s"
                        + " ON (c.counter_key = s.k) WHEN MATCHED THEN UPDATE SET c.counter_value = s.v"
                        + " WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.v)"));
    }
}
