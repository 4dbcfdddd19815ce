package dev.rowqueue.oracle;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.support.StandardCounterStore;
import dev.rowqueue.support.CounterStatements;

import java.util.List;
import java.util.OptionalLong;

/**
 * Counters on Oracle. An increment is one PL/SQL block, one round trip: a guarded
 * {@code UPDATE ... RETURNING counter_value INTO}; if no row matched, an {@code INSERT}; if that raises ORA-00001
 * (the counter exists but is out of the guard's range, or a concurrent caller created it and committed while our
 * INSERT waited), the guarded UPDATE once more. A NULL result means the increment would leave the 64-bit range and
 * nothing changed. {@code set} is one {@code MERGE}, retried if a concurrent creator wins (ORA-00001).
 */
final class OracleCounterStore extends StandardCounterStore {

    private final PlSqlCall add;
    private final Sql set;

    OracleCounterStore(OracleDialect dialect, CounterTable table) {
        this(dialect, table, Sql.of("MERGE INTO " + table.table() + " c USING (SELECT :key AS k, :value AS v FROM dual)"
                + " s ON (c.counter_key = s.k) WHEN MATCHED THEN UPDATE SET c.counter_value = s.v"
                + " WHEN NOT MATCHED THEN INSERT (counter_key, counter_value) VALUES (s.k, s.v)"));
    }

    private OracleCounterStore(OracleDialect dialect, CounterTable table, Sql set) {
        super(dialect, table, CounterStatements.PORTABLE.withSet(set));
        this.set = set;
        String update = "UPDATE " + t.table() + " SET counter_value = counter_value + :delta WHERE counter_key = :key"
                + " AND counter_value BETWEEN :lo AND :hi RETURNING counter_value INTO v_value;";
        add = new PlSqlCall(Sql.of("DECLARE v_value NUMBER(19); BEGIN " + update + " IF SQL%ROWCOUNT = 0 THEN BEGIN"
                + " INSERT INTO " + t.table() + " (counter_key, counter_value) VALUES (:key, :delta);"
                + " v_value := :delta; EXCEPTION WHEN DUP_VAL_ON_INDEX THEN " + update + " END; END IF;"
                + " :result := v_value; END;"), "result");
    }

    /** @return the statements this store renders, for tests */
    List<Sql> statements() {
        return List.of(add.sql(), set);
    }

    @Override
    public SqlOp<OptionalLong> add(String key, long delta) {
        long[] range = guard(delta);
        return SqlOp.statement(c -> add.call(c, dialect, b -> b.set("delta", delta).set("key", key)
                .set("lo", range[0]).set("hi", range[1])));
    }
}
