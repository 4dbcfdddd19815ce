package dev.rowqueue.oracle;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterStore;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Emulated (H2 MODE=Oracle): the statements H2's Oracle compatibility mode executes unchanged, executed there. This
 * checks that they parse and behave as intended on an SQL engine; it is not a run on Oracle. Statements H2 cannot
 * run unchanged (PL/SQL blocks, {@code SYS_EXTRACT_UTC}) are pinned by {@link OracleStatementsTest} only.
 */
@DisplayName("emulated (H2 MODE=Oracle)")
class OracleEmulatedH2Test {

    private Connection c;

    @BeforeEach
    void open() throws SQLException {
        c = DriverManager.getConnection("jdbc:h2:mem:oracle_emulated;MODE=Oracle", "sa", "");
    }

    @AfterEach
    void close() throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP ALL OBJECTS");
        }
        c.close();
    }

    private void execute(List<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    @Test
    @DisplayName("emulated (H2 MODE=Oracle): the DDL of every kind, strategy and payload option executes")
    void emulated_ddl_of_every_kind_strategy_and_payload_option_executes() throws SQLException {
        for (String payload : List.of("varchar2", "clob")) {
            OracleDialect d = OracleDialectTest.dialect(19, payload);
            List<String> ddl = new ArrayList<>(d.ddl().catalog());
            ddl.addAll(d.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(5)));
            ddl.addAll(d.ddl().ring(RingTables.of("fruit"), RingOptions.ofCapacity(5).withStrategy(RingStrategy.SINGLE_WRITER)));
            ddl.addAll(d.ddl().work(WorkTables.of("mail")));
            ddl.addAll(d.ddl().counters(CounterTable.of("sales")));
            execute(ddl);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    d.probe("mail", "id, payload, prio, state, due_ms, attempts, lease_token, enqueued_ms, last_error"))) {
                assertTrue(!rs.next());
            }
            execute(List.of(d.ddl().dropTable("views").replace(" PURGE", ""), "DROP ALL OBJECTS"));
        }
    }

    @Test
    @DisplayName("emulated (H2 MODE=Oracle): the upgrade from schema version 1 executes, and unique keys allow NULLs")
    void emulated_upgrade_from_version_1_executes_and_the_unique_index_takes_many_nulls() throws SQLException {
        OracleDialect d = OracleDialectTest.dialect(19, null);
        WorkTables t = WorkTables.of("mail");
        execute(d.ddl().work(t, 1));
        execute(List.of("INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ('old', 0, 0,"
                + " 1, 0, 1)"));
        execute(d.ddl().workUpgrade(t));
        execute(List.of("INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms, job_key, unique_key,"
                + " key_seq) VALUES ('a', 0, 0, 1, 0, 1, 'k', NULL, 1)",
                "INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms, job_key, unique_key, key_seq)"
                        + " VALUES ('b', 0, 0, 1, 0, 1, 'k', 'u', 2)"));
        assertThrows(SQLException.class, () -> execute(List.of("INSERT INTO mail (payload, prio, state, due_ms,"
                + " attempts, enqueued_ms, unique_key) VALUES ('c', 0, 0, 1, 0, 1, 'u')")), "one live job per unique key");
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT COUNT(*), SUM(key_seq) FROM mail WHERE unique_key IS NULL")) {
            assertTrue(rs.next());
            assertEquals(2, rs.getInt(1), "the old job and a job without a unique key");
            assertEquals(1, rs.getInt(2), "the old job got key_seq 0 from the column's default");
        }
    }

    @Test
    @DisplayName("emulated (H2 MODE=Oracle): the 64-bit range checks reject 2^63, which NUMBER(19) would hold")
    void emulated_range_checks_reject_values_past_the_64_bit_range() throws SQLException {
        OracleDialect d = OracleDialectTest.dialect(19, null);
        execute(d.ddl().counters(CounterTable.of("sales")));
        execute(List.of("INSERT INTO sales (counter_key, counter_value) VALUES ('max', 9223372036854775807)"));
        SQLException e = assertThrows(SQLException.class, () -> execute(List.of(
                "INSERT INTO sales (counter_key, counter_value) VALUES ('over', 9223372036854775808)")));
        assertTrue(e.getMessage().toLowerCase().contains("check"), e.getMessage());
    }

    @Test
    @DisplayName("emulated (H2 MODE=Oracle): counter get, all and remove keep keys that differ in trailing blanks apart")
    void emulated_counter_reads() throws SQLException {
        OracleDialect d = OracleDialectTest.dialect(19, null);
        execute(d.ddl().counters(CounterTable.of("sales")));
        execute(List.of("INSERT INTO sales (counter_key, counter_value) VALUES ('k', 8)",
                "INSERT INTO sales (counter_key, counter_value) VALUES ('k ', 1)"));
        CounterStore store = d.counterStore(CounterTable.of("sales"));
        assertEquals(OptionalLong.of(8), store.get("k").run(c));
        assertEquals(Map.of("k", 8L, "k ", 1L), store.all().run(c), "VARCHAR2 binds compare without padding");
        assertTrue(store.remove("k").run(c));
        assertEquals(OptionalLong.empty(), store.get("k").run(c));
        assertEquals(OptionalLong.of(1), store.get("k ").run(c));
    }

    @Test
    @DisplayName("emulated (H2 MODE=Oracle): the claim's candidate query with FOR UPDATE SKIP LOCKED and no row limit")
    void emulated_candidate_query_locks_with_skip_locked() throws SQLException {
        OracleDialect d = OracleDialectTest.dialect(19, null);
        execute(d.ddl().work(WorkTables.of("mail")));
        execute(List.of("INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ('a', 1, 0, 0, 0, 0)",
                "INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ('b', 5, 0, 0, 0, 0)",
                "INSERT INTO mail (payload, prio, state, due_ms, attempts, enqueued_ms) VALUES ('', 5, 0, 0, 0, 0)"));
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("SELECT id, payload FROM mail WHERE state = 0 AND due_ms <= 0"
                + " ORDER BY prio DESC, due_ms, id" + d.lockingLimit("n"))) {
            ps.setFetchSize(2);
            ps.setMaxRows(2);
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            assertEquals(List.of(2L, 3L), ids, "priority first, then id; only n rows");
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
