package dev.rowqueue.tck;

import dev.rowqueue.portable.PortableFeatures;
import dev.rowqueue.portable.PortableFeatures.KeyForm;
import dev.rowqueue.portable.PortableFeatures.Limit;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the portable dialect's probes find on real engines, each of which differs from the SQL standard somewhere:
 * the answers come from the database, and the probe leaves no table behind.
 */
class PortableFeaturesTest {

    private static PortableFeatures probe(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            int before = tables(c);
            PortableFeatures f = PortableFeatures.probe(c);
            assertEquals(before, tables(c), "the probe drops its scratch tables");
            assertTrue(c.getAutoCommit());
            return f;
        }
    }

    private static int tables(Connection c) throws SQLException {
        int n = 0;
        try (ResultSet rs = c.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void hsqldb_compares_text_blank_padded_and_types_untyped_parameter_sums_as_32_bit() throws SQLException {
        PortableFeatures f = probe("jdbc:hsqldb:mem:probe;user=SA");
        assertEquals(KeyForm.MARKED, f.keyForm(), "'a' = 'a ' on HSQLDB");
        assertTrue(f.castParameters(), "? + ? of epoch milliseconds is out of range without a cast");
        assertTrue(f.identity().contains("START WITH 1"), "ids start at 1: " + f.identity());
        assertEquals("23505", f.duplicateKey().sqlState());
    }

    @Test
    void derby_refuses_two_untyped_operands_and_pads_blanks() throws SQLException {
        PortableFeatures f = probe("jdbc:derby:memory:probe;create=true");
        assertTrue(f.castParameters(), "Derby: both operands of '+' may not be ? parameters");
        assertEquals(KeyForm.MARKED, f.keyForm());
        assertFalse(f.ifNotExists());
        assertEquals(Limit.FETCH_FIRST, f.limit());
        assertEquals("X0Y32", f.alreadyExists().sqlState());
        assertEquals("42X05", f.undefinedTable().sqlState());
        assertFalse(f.identityFollows(), "Derby's identity ignores explicitly inserted ids: a restart is needed");
    }

    @Test
    void sqlite_has_its_own_identity_limit_and_errors_without_sqlstates() throws Exception {
        String file = Files.createTempDirectory("rowqueue-probe").resolve("p.db").toString();
        PortableFeatures f = probe("jdbc:sqlite:" + file);
        assertTrue(f.identityIsKey(), "INTEGER PRIMARY KEY AUTOINCREMENT: " + f.identity());
        assertTrue(f.identityFollows(), "AUTOINCREMENT continues after explicitly inserted ids");
        assertEquals(Limit.LIMIT, f.limit());
        assertEquals(KeyForm.EXACT, f.keyForm());
        assertFalse(f.castParameters());
        assertNotNull(f.undefinedTable().message(), "no SQLState: the message tells a missing table");
        assertNotNull(f.alreadyExists().message());
        assertTrue(f.undefinedTable().matches(new SQLException(
                "[SQLITE_ERROR] SQL error or missing database (no such table: tck_abcdefgh)", null, 1)));
        assertEquals("main.q_1", f.undefinedTable().name(new SQLException(
                "[SQLITE_ERROR] SQL error or missing database (no such table: main.q_1)", null, 1)),
                "the name, for the look-up in the catalog that tells a stale schema from a dropped table");
        assertNull(f.undefinedTable().name(new SQLException("database is locked", null, 5)));
        assertFalse(f.undefinedTable().matches(new SQLException(
                "[SQLITE_ERROR] SQL error or missing database (near \"ALTER\": syntax error)", null, 1)),
                "a syntax error is not a missing table");
    }

    @Test
    void h2_is_the_standard() throws SQLException {
        PortableFeatures f = probe("jdbc:h2:mem:probe");
        assertEquals(KeyForm.EXACT, f.keyForm());
        assertFalse(f.castParameters());
        assertEquals(Limit.FETCH_FIRST, f.limit());
        assertTrue(f.descendingIndexes());
        assertNull(f.undefinedTable().message(), "an SQLState is enough");
    }

    /**
     * A connection whose text parameters lose what latin1 lacks, as a driver talking latin1 to its server would: no
     * column type can give Unicode text back, and the probe refuses the database, saying so, instead of accepting
     * payloads it would alter.
     */
    @Test
    void text_that_cannot_come_back_unchanged_is_refused_naming_each_type_tried() throws SQLException {
        javax.sql.DataSource latin1 = new dev.rowqueue.testkit.InterceptingDataSource(dataSource("jdbc:h2:mem:latin1")) {
            @Override
            protected Object aroundStatement(String sql, java.lang.reflect.Method method, Object[] args, Call call)
                    throws Throwable {
                if (method.getName().equals("setString") && args[1] instanceof String text) {
                    args[1] = text.codePoints().mapToObj(cp -> cp <= 0xff ? Character.toString(cp) : "?")
                            .collect(java.util.stream.Collectors.joining());
                }
                return call.proceed();
            }
        };
        try (Connection c = latin1.getConnection()) {
            int before = tables(c);
            SQLException e = assertThrows(SQLException.class, () -> PortableFeatures.probe(c));
            assertTrue(e.getMessage().contains("no text column type that gives back any Unicode text unchanged")
                    && e.getMessage().contains("VARCHAR(4000) gave back")
                    && e.getMessage().contains("NATIONAL CHARACTER VARYING(4000)")
                    && e.getMessage().contains("CHARACTER SET utf8mb4"), e.getMessage());
            assertEquals(before, tables(c), "the probe drops its scratch tables");
        }
        assertEquals("VARCHAR(%d)", probe("jdbc:h2:mem:unicode").textType(), "H2's VARCHAR keeps Unicode");
    }

    /** Connections of one URL, as a data source. */
    private static javax.sql.DataSource dataSource(String url) {
        return new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return DriverManager.getConnection(url);
            }
        };
    }

    @Test
    void derby_reads_wait_for_writers_and_h2_reads_do_not() {
        PortableFeatures.Concurrency derby = PortableFeatures.concurrency(
                dataSource("jdbc:derby:memory:probe_concurrency;create=true"));
        assertTrue(derby.readsWaitForWriters(), "Derby locks rows for reads: " + derby);
        assertNull(derby.writeConflict(), "a second writer waits for the first: " + derby);
        PortableFeatures.Concurrency h2 = PortableFeatures.concurrency(
                dataSource("jdbc:h2:mem:probe_concurrency;DB_CLOSE_DELAY=-1"));
        assertFalse(h2.readsWaitForWriters(), "H2 reads the committed version: " + h2);
    }
}
