package dev.rowqueue.tck;

import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.core.LauncherFactory;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * In-memory databases: one that lives while a connection is open runs the kit, one of which each connection has its
 * own copy is refused before any contract runs.
 */
class DatabaseHoldTest {

    /** Each connection opens an H2 in-memory database of its own, under a new name: H2's private databases. */
    static final class PrivatePerConnection extends SimpleDataSource {
        @Override
        public Connection getConnection() throws SQLException {
            return DriverManager.getConnection("jdbc:h2:mem:private_" + UUID.randomUUID(), "sa", "");
        }
    }

    @AfterEach
    void clear() {
        ConfiguredTarget.use(null);
    }

    private static boolean sees(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.executeQuery("SELECT COUNT(*) FROM " + table).close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Test
    void the_hold_keeps_an_in_memory_database_alive_until_it_is_closed() throws Exception {
        DataSource ds = new DriverManagerDataSource("jdbc:h2:mem:hold_alive", "sa", "");
        try (DatabaseHold hold = DatabaseHold.open(ds)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (id INT)");
            }
            assertTrue(sees(ds, "kept"), "the database outlived the connection that created the table");
        }
        assertFalse(sees(ds, "kept"), "without the hold the database vanishes with its last connection");
    }

    /**
     * The first connection goes to a "primary" database, every later one to a "replica" that gets each table the
     * primary has 300 ms after it appears there, as a cluster member applies another's DDL a moment later.
     */
    @Test
    void a_second_connection_that_sees_the_table_a_moment_later_is_accepted() throws Exception {
        String id = UUID.randomUUID().toString().replace("-", "");
        String primary = "jdbc:h2:mem:primary_" + id + ";DB_CLOSE_DELAY=-1";
        String replica = "jdbc:h2:mem:replica_" + id + ";DB_CLOSE_DELAY=-1";
        java.util.concurrent.atomic.AtomicInteger handedOut = new java.util.concurrent.atomic.AtomicInteger();
        DataSource lagging = new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return DriverManager.getConnection(handedOut.getAndIncrement() == 0 ? primary : replica, "sa", "");
            }
        };
        Thread applier = new Thread(() -> {
            try (Connection p = DriverManager.getConnection(primary, "sa", "");
                 Connection r = DriverManager.getConnection(replica, "sa", "")) {
                while (!Thread.currentThread().isInterrupted()) {
                    try (Statement s = p.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT TABLE_NAME"
                            + " FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME LIKE 'TCK\\_%'")) {
                        if (rs.next()) {
                            String table = rs.getString(1);
                            Thread.sleep(300);
                            try (Statement c = r.createStatement()) {
                                c.execute("CREATE TABLE " + table + " (id INTEGER)");
                            }
                            return;
                        }
                    }
                    Thread.sleep(10);
                }
            } catch (SQLException | InterruptedException e) {
                // the test fails on its own
            }
        });
        applier.start();
        try {
            DatabaseHold.check(lagging);
        } finally {
            applier.interrupt();
            applier.join();
        }
    }

    @Test
    void a_data_source_whose_connections_each_have_their_own_database_is_refused_with_what_to_do() {
        DatabaseHold.NotSharedException e = assertThrows(DatabaseHold.NotSharedException.class,
                () -> DatabaseHold.open(new PrivatePerConnection()));
        assertTrue(e.getMessage().startsWith("the connections of this data source do not share one database: a table"
                + " created on one connection (tck_"), e.getMessage());
        assertTrue(e.getMessage().contains("is not visible from a second one (Table \"TCK_"), e.getMessage());
        assertTrue(e.getMessage().contains("Give a URL that names a database shared between connections: a file, a"
                + " server, or a named in-memory database that connections share."), e.getMessage());
        assertTrue(e.getCause() instanceof SQLException);
    }

    private static TckReportListener.Result runRingContract(String url, Path out) {
        ConfiguredTarget.use(new ConfiguredTarget.Settings("in memory", url, "sa", "", null, Map.of()));
        LauncherFactory.create().execute(request()
                .selectors(selectNestedClass(List.of(ConfiguredTck.class), RowQueueTck.Rings.class))
                .configurationParameter(TckReportListener.REPORT_DIR, out.toString())
                .configurationParameter(TckReportListener.QUIET, "true")
                .build());
        return TckReportListener.result(ConfiguredTck.class).orElseThrow();
    }

    @Test
    void the_kit_runs_on_a_plain_in_memory_url(@TempDir Path out) {
        TckReportListener.Result r = runRingContract("jdbc:h2:mem:hold_plain", out);
        assertEquals("PASSED", r.verdict(), r.summary());
        assertTrue(r.counts().get(TckReportListener.Status.PASSED) > 10, r.summary());
    }

    @Test
    void the_kit_refuses_a_private_in_memory_database_before_any_contract_runs(@TempDir Path out) {
        TckReportListener.Result r = runRingContract("jdbc:h2:mem:", out);
        assertEquals("NOT RUN", r.verdict(), r.summary());
        assertEquals(0L, r.counts().get(TckReportListener.Status.PASSED) + r.counts()
                .get(TckReportListener.Status.FAILED), r.summary());
        assertTrue(r.summary().contains("NotSharedException: the connections of this data source do not share one"
                + " database"), r.summary());
    }
}
