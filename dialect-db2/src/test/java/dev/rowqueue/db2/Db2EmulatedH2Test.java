package dev.rowqueue.db2;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.CounterStore;
import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingStore;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.support.Sql;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.support.SqlForms;
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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Emulated (H2 MODE=DB2): the statements H2's DB2 compatibility mode executes unchanged, executed there through the
 * dialect's own stores and binding (keys as bytes). This checks that they parse and behave as intended on an SQL
 * engine; it is not a run on Db2. In particular H2 stores {@code FOR BIT DATA} as {@code VARBINARY}, which never
 * pads, so these runs do not show Db2's blank-padded comparison: {@link Db2DialectTest} covers the key encoding that
 * deals with it. Statements H2 cannot run unchanged (the clock expression, {@code UPDATE (fullselect)},
 * {@code INCLUDE}, {@code ORDER BY INPUT SEQUENCE}) are pinned by {@link Db2StatementsTest} only.
 */
@DisplayName("emulated (H2 MODE=DB2)")
class Db2EmulatedH2Test {

    private final Db2Dialect dialect = Db2DialectTest.dialect(11, 5);
    private Connection c;

    @BeforeEach
    void open() throws SQLException {
        c = DriverManager.getConnection("jdbc:h2:mem:db2_emulated;MODE=DB2", "sa", "");
    }

    @AfterEach
    void close() throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP ALL OBJECTS");
        }
        c.close();
    }

    /** Runs statements; H2 does not parse Db2's {@code EXCLUDE NULL KEYS}, and its unique indexes need none. */
    private void execute(List<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql.replace(" EXCLUDE NULL KEYS", ""));
            }
        }
    }

    @Test
    @DisplayName("emulated (H2 MODE=DB2): the DDL of every kind and strategy executes")
    void emulated_ddl_of_every_kind_and_strategy_executes() throws SQLException {
        List<String> ddl = new ArrayList<>(dialect.ddl().catalog());
        ddl.addAll(dialect.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(5)));
        ddl.addAll(dialect.ddl().ring(RingTables.of("fruit"), RingOptions.ofCapacity(5).withStrategy(RingStrategy.SINGLE_WRITER)));
        ddl.addAll(dialect.ddl().work(WorkTables.of("mail")));
        ddl.addAll(dialect.ddl().counters(CounterTable.of("sales")));
        execute(ddl);
        execute(dialect.ddl().restartIdentity(WorkTables.of("mail"), 1001));
        execute(List.of(dialect.ddl().dropTable("views")));
    }

    @Test
    @DisplayName("emulated (H2 MODE=DB2): counters through FINAL TABLE (UPDATE | INSERT) and MERGE, keys as bytes")
    void emulated_counters_through_final_table_and_merge() throws SQLException {
        execute(dialect.ddl().counters(CounterTable.of("sales")));
        CounterStore store = dialect.counterStore(CounterTable.of("sales"));
        assertEquals(OptionalLong.of(5), store.add("k", 5).run(c), "created through FINAL TABLE (INSERT)");
        assertEquals(OptionalLong.of(12), store.add("k", 7).run(c), "incremented through FINAL TABLE (UPDATE)");
        assertEquals(OptionalLong.of(1), store.add("k ", 1).run(c));
        assertEquals(OptionalLong.of(2), store.add("K", 2).run(c));
        store.set("max", Long.MAX_VALUE).run(c);
        store.set("max", Long.MAX_VALUE - 1).run(c);
        assertEquals(OptionalLong.of(Long.MAX_VALUE), store.add("max", 1).run(c));
        assertEquals(OptionalLong.empty(), store.add("max", 1).run(c), "past the range: -803 path, then nothing");
        assertEquals(OptionalLong.of(Long.MAX_VALUE), store.get("max").run(c));
        assertEquals(Map.of("k", 12L, "k ", 1L, "K", 2L, "max", Long.MAX_VALUE), store.all().run(c));
        assertTrue(store.remove("k ").run(c));
        assertEquals(OptionalLong.empty(), store.get("k ").run(c));
        assertEquals(OptionalLong.of(12), store.get("k").run(c));
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT counter_key FROM sales WHERE counter_key = X'4b'")) {
            assertTrue(rs.next(), "a key is stored as its UTF-8 bytes");
        }
    }

    @Test
    @DisplayName("emulated (H2 MODE=DB2): the ring head is bumped through FINAL TABLE (UPDATE), created when missing")
    void emulated_head_bump() throws SQLException {
        execute(dialect.ddl().ring(RingTables.of("views"), RingOptions.ofCapacity(3)));
        Db2Dialect clocked = new Db2Dialect(dialect.product()) { // H2 has no DAYS(): time as a bound parameter
            @Override
            public SqlForms sqlForms() {
                return super.sqlForms().withNow(":now");
            }
        };
        RingStore store = clocked.ringStore(RingTables.of("views"), RingOptions.ofCapacity(3));
        c.setAutoCommit(false);
        try {
            assertArrayEquals(new long[] {1, 2}, store.push("g", List.of("a", "b")).run(c),
                    "a new group: created through the portable path");
            assertArrayEquals(new long[] {3, 4, 5}, store.push("g", List.of("c", "d", "x")).run(c),
                    "then bumped through FINAL TABLE (UPDATE)");
            assertArrayEquals(new long[] {1}, store.push("g ", List.of("y")).run(c), "another group");
            c.commit();
        } finally {
            c.setAutoCommit(true);
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT seq FROM views WHERE grp = X'6720FF'")) {
            assertTrue(rs.next(), "a group is stored as its UTF-8 bytes and a marker");
        }
        assertEquals(List.of("g", "g "), sorted(store.groups().run(c)));
        assertEquals(1, store.size("g ").run(c));
        assertEquals("x", store.read("g", true, 1).run(c).get(0).payload());
    }

    private static List<String> sorted(List<String> list) {
        List<String> copy = new ArrayList<>(list);
        copy.sort(null);
        return copy;
    }

    @Test
    @DisplayName("emulated (H2 MODE=DB2): ack pops the leased job through OLD TABLE (DELETE)")
    void emulated_ack_through_old_table() throws SQLException {
        execute(dialect.ddl().work(WorkTables.of("mail")));
        execute(List.of("INSERT INTO mail (payload, prio, state, due_ms, attempts, lease_token, enqueued_ms)"
                + " VALUES ('a', 0, 0, 0, 0, 9, 0)"));
        WorkStore store = dialect.workStore(WorkTables.of("mail"));
        assertFalse(store.ack(1, 8).run(c), "another lease token deletes nothing");
        assertTrue(store.ack(1, 9).run(c));
        assertFalse(store.ack(1, 9).run(c));
        Sql count = Sql.of("SELECT COUNT(*) FROM mail");
        try (PreparedStatement ps = count.prepare(c); ResultSet rs = ps.executeQuery()) {
            rs.next();
            assertEquals(0, rs.getLong(1));
        }
    }
}
