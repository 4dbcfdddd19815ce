package dev.rowqueue.mysql;

import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.spi.SqlErrorKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Galera behaviour the dialect is built on, provoked on a real three-node cluster ({@link GaleraCluster}, NOT
 * RUN without galera-4): a {@code COMMIT} that loses certification fails with 1213 and is classified as a rolled-back
 * transaction (retried whole, never an unknown commit outcome); a node cut off from the others refuses statements
 * with 1047, classified as refused before running; rowqueue detects Galera and sets its session.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class GaleraServerBehaviourTest {

    private GaleraCluster cluster;

    @BeforeAll
    void start() {
        cluster = GaleraCluster.start();
        cluster.createDatabase("behaviour");
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Connection node(int n) throws SQLException {
        return DriverManager.getConnection(cluster.url(n, "behaviour"), "root", "");
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(rs.getMetaData().getColumnCount()) : null;
        }
    }

    @Test
    void a_commit_that_loses_certification_fails_with_1213_and_is_a_rolled_back_transaction() throws Exception {
        MySqlDialect dialect;
        try (Connection a = node(0); Connection b = node(1)) {
            dialect = (MySqlDialect) new MariaDbDialectProvider().create(product(a), Map.of(), a);
            run(a, "CREATE TABLE cert (id INT PRIMARY KEY, v INT) ENGINE=InnoDB");
            run(a, "INSERT INTO cert VALUES (1, 0)");
            run(b, "SET SESSION wsrep_sync_wait = 7");
            assertEquals("0", one(b, "SELECT v FROM cert WHERE id = 1"));
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            run(a, "UPDATE cert SET v = 1 WHERE id = 1");
            run(b, "UPDATE cert SET v = 2 WHERE id = 1"); // node-local lock: does not wait for node 1
            a.commit();
            SQLException lost = assertThrows(SQLException.class, b::commit);
            assertEquals(1213, lost.getErrorCode(), lost.toString());
            assertEquals("40001", lost.getSQLState());
            assertEquals(SqlErrorKind.ROLLED_BACK, dialect.classify(lost));
            b.rollback();
            b.setAutoCommit(true);
            assertEquals("1", one(b, "SELECT v FROM cert WHERE id = 1"));
        }
        assertTrue(dialect.galera());
    }

    private static dev.rowqueue.spi.DatabaseProduct product(Connection c) throws SQLException {
        java.sql.DatabaseMetaData m = c.getMetaData();
        return new dev.rowqueue.spi.DatabaseProduct(m.getDatabaseProductName(), m.getDatabaseProductVersion(),
                m.getDatabaseMajorVersion(), m.getDatabaseMinorVersion(), m.getDriverName(), m.getDriverVersion(),
                m.getURL());
    }

    @Test
    void a_node_cut_off_from_the_others_refuses_statements_with_1047_until_it_rejoins() throws Exception {
        MySqlDialect dialect = MySqlDialect.create(MySqlDialect.MARIADB, productOf(2), Map.of(), true);
        try (Connection c = node(2)) {
            run(c, "CREATE TABLE IF NOT EXISTS isolated (id INT PRIMARY KEY) ENGINE=InnoDB");
            run(c, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
            try {
                SQLException refused = null;
                long deadline = System.currentTimeMillis() + 30_000;
                while (refused == null && System.currentTimeMillis() < deadline) {
                    try {
                        one(c, "SELECT COUNT(*) FROM isolated");
                        Thread.sleep(100);
                    } catch (SQLException e) {
                        refused = e;
                    }
                }
                assertTrue(refused != null, "the isolated node kept answering");
                assertEquals(1047, refused.getErrorCode(), refused.toString());
                assertEquals("08S01", refused.getSQLState());
                assertEquals(SqlErrorKind.CONNECTION, dialect.classify(refused));
                assertTrue(dialect.failedBeforeSending(refused));
            } finally {
                run(c, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
            }
        }
        cluster.awaitSynced(2);
    }

    private dev.rowqueue.spi.DatabaseProduct productOf(int n) throws SQLException {
        try (Connection c = node(n)) {
            return product(c);
        }
    }

    @Test
    void rowqueue_detects_galera_and_runs_its_connections_without_autocommit_retry_and_with_causal_reads()
            throws Exception {
        try (com.zaxxer.hikari.HikariDataSource ds = MySqlTargets.pool(cluster.url(1, "behaviour"), "root", "",
                null, "galera-behaviour");
             RowQueues rq = RowQueues.builder(ds).build()) {
            RingQueue ring = rq.ring("behaviour_ring", 4);
            assertEquals(1, ring.push("g", "a"));
            try (Connection c = ds.getConnection()) {
                // the pool has one idle connection: the one rowqueue prepared
                assertEquals("0", one(c, "SELECT @@session.wsrep_retry_autocommit"));
                assertEquals("7", one(c, "SELECT @@session.wsrep_sync_wait"));
            }
            try (Connection c = node(0)) {
                assertEquals("0", one(c, "SELECT COUNT(*) FROM information_schema.triggers"
                        + " WHERE trigger_schema = 'behaviour'"), "no push trigger on Galera");
            }
        }
    }
}
