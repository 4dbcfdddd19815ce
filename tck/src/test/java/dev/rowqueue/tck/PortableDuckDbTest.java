package dev.rowqueue.tck;

import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.WorkTables;
import dev.rowqueue.portable.PortableFeatures;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The portable dialect on DuckDB, an engine whose driver reports no SQLState, adds a varying "Did you mean ...?"
 * to a missing table's report (and, for a plain statement, wraps it under another heading), and has no
 * {@code ALTER SEQUENCE ... RESTART}.
 */
class PortableDuckDbTest {

    @TempDir
    Path dir;

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("p.db"));
    }

    @Test
    void a_missing_table_is_recognised_whatever_the_suggestion_and_statement_kind() throws Exception {
        try (Connection c = connect()) {
            PortableFeatures f = PortableFeatures.of(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE jobs_present (k BIGINT)");
            }
            SQLException plain = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT k FROM jobs_missing");
                }
            });
            SQLException prepared = assertThrows(SQLException.class, () -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE other_missing SET k = 1")) {
                    ps.executeUpdate();
                }
            });
            assertTrue(f.undefinedTable().matches(plain), f.undefinedTable().describe() + " / " + plain.getMessage());
            assertTrue(f.undefinedTable().matches(prepared), prepared.getMessage());
            SQLException column = assertThrows(SQLException.class, () -> {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT nope FROM jobs_present");
                }
            });
            assertFalse(f.undefinedTable().matches(column), "a missing column is not a missing table");
        }
    }

    private RowQueues instance() {
        SimpleDataSource ds = new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return connect();
            }
        };
        return RowQueues.builder(ds).dialect("portable").scheduler(false).build();
    }

    @Test
    void a_missing_table_carries_a_standard_sqlstate_where_the_driver_reports_none() throws Exception {
        try (RowQueues rq = instance()) {
            WorkQueue q = rq.workQueue("gone").create();
            try (Connection c = connect(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE gone");
            }
            SchemaException e = assertThrows(SchemaException.class, () -> q.enqueue("x"));
            assertEquals("42S02", e.sqlState(), e.getMessage());
        }
    }

    @Test
    void jobs_imported_with_explicit_ids_are_followed_without_a_sequence_restart() throws Exception {
        try (RowQueues rq = instance()) {
            WorkQueue q = rq.workQueue("moved");
            q.enqueue("before");
            try (Connection c = connect(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO moved (id, payload, prio, state, due_ms, attempts, enqueued_ms) VALUES (1000,"
                        + " 'imported', 9, " + WorkTables.LIVE + ", 0, 0, 0)");
                for (String sql : rq.schema().restartJobIds("moved", 1001)) {
                    s.execute(sql);
                }
            }
            long next = q.enqueue("after");
            assertTrue(next >= 1001, "new id " + next + " follows the imported one");
            assertEquals(List.of("imported", "before", "after"),
                    q.claim(3).stream().map(dev.rowqueue.Job::payload).toList());
        }
    }
}
