package dev.rowqueue.tck;

import dev.rowqueue.testkit.SimpleDataSource;

import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A step that times out names the statement that is stuck and what the database's lock view says, on HSQLDB (whose
 * default LOCKS mode makes a second writer of a row wait for the first, with no lock timeout).
 */
class StuckStatementsTest {

    @Test
    void a_timeout_names_the_waiting_statement_and_the_lock_view_rows() throws Exception {
        String url = "jdbc:hsqldb:mem:stuck;user=SA";
        DataSource tracked = StuckStatements.track(new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return DriverManager.getConnection(url);
            }
        });
        try (Connection first = DriverManager.getConnection(url)) {
            exec(first, "CREATE TABLE hot (k INTEGER PRIMARY KEY, v INTEGER)");
            exec(first, "INSERT INTO hot VALUES (1, 0)");
            first.setAutoCommit(false);
            exec(first, "UPDATE hot SET v = 1 WHERE k = 1");
            Future<Object> second = CompletableFuture.supplyAsync(() -> {
                try (Connection c = tracked.getConnection()) {
                    exec(c, "UPDATE hot SET v = 2 WHERE k = 1");
                    return null;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            AssertionError stuck = assertThrows(AssertionError.class,
                    () -> StuckStatements.await(second, Duration.ofSeconds(1), "the second writer"));
            String report = stuck.getMessage();
            assertTrue(report.startsWith("the second writer did not finish within PT1S."), report);
            assertTrue(report.contains("ms on thread '") && report.contains(": UPDATE hot SET v = 2 WHERE k = 1"),
                    "names the stuck statement: " + report);
            assertTrue(report.contains("Lock view (SELECT * FROM INFORMATION_SCHEMA.SYSTEM_SESSIONS)"),
                    "the probed lock view: " + report);
            first.rollback();
            second.get();
        }
        assertTrue(StuckStatements.describe().startsWith("No statement of the kit's connections is running"));
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
