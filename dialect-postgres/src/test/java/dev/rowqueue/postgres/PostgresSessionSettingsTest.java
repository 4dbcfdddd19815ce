package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SessionSettingException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code postgresql} dialect in databases whose sessions a DBA configured with {@code ALTER DATABASE ... SET}:
 * what it pins costs one statement per physical connection, and what it refuses is refused at {@code build()} with
 * the setting and its value.
 */
class PostgresSessionSettingsTest {

    /** What {@link PostgresNewestEmbeddedDatabaseSettingsTckTest}'s database is set to. */
    static final List<String> DBA_SETTINGS = List.of("default_transaction_isolation = 'serializable'",
            "search_path = 'rq_elsewhere', public", "statement_timeout = '100ms'", "lock_timeout = '100ms'");
    /** What its database has first: the schema the path names. */
    static final List<String> DBA_SQL = List.of("CREATE SCHEMA rq_elsewhere");

    private static final EmbeddedPostgresServer SERVER = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);

    private static RowQueues build(javax.sql.DataSource ds) {
        return RowQueues.builder(ds).dialect("postgresql").recordActivity(false).scheduler(false).build();
    }

    /**
     * The timeouts are pinned once per physical connection: a pool of one connection, 20 claims and acks after the
     * first, no {@code set_config} among their statements; the tables are where the path says.
     */
    @Test
    void pinsTheTimeoutsOncePerPhysicalConnection() throws SQLException {
        String database = PgFixture.configuredDatabase(SERVER, DBA_SETTINGS, DBA_SQL);
        try (HikariDataSource pool = SERVER.pool(database, 1)) {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
                rs.next();
                assertEquals("100ms", rs.getString(1), "the database's setting, before rowqueue");
            }
            CountingDataSource counting = new CountingDataSource(pool);
            try (RowQueues rq = build(counting)) {
                WorkQueue q = rq.workQueue("ss_pin");
                q.create();
                for (int i = 0; i < 21; i++) {
                    q.enqueue("p" + i);
                }
                q.ack(q.claim(1).get(0));
                counting.record();
                long before = counting.executions();
                for (int i = 1; i < 21; i++) {
                    List<Job> jobs = q.claim(1);
                    assertEquals("p" + i, jobs.get(0).payload());
                    assertTrue(q.ack(jobs.get(0)));
                }
                long statements = counting.executions() - before;
                List<String> sql = counting.recorded();
                assertEquals(0, sql.stream().filter(s -> s.contains("set_config")).count(), sql.toString());
                assertEquals(40, statements, "one statement per claim and per ack: " + sql);
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT current_setting('statement_timeout'),"
                         + " to_regclass('rq_elsewhere.ss_pin') IS NOT NULL")) {
                rs.next();
                assertEquals("0", rs.getString(1), "pinned on the pool's physical connection");
                assertTrue(rs.getBoolean(2), "the jobs table is in the path's first schema");
            }
        }
    }

    @Test
    void refusesAReadOnlyDefault() {
        SessionSettingException e = refused(List.of("default_transaction_read_only = on"), List.of());
        assertEquals("default_transaction_read_only", e.setting());
        assertEquals("on", e.value());
        assertTrue(e.getMessage().contains("default_transaction_read_only = 'on'"), e.getMessage());
    }

    @Test
    void refusesASearchPathWithoutAnExistingSchema() {
        SessionSettingException e = refused(List.of("search_path = 'no_such_schema'"), List.of());
        assertEquals("search_path", e.setting());
        assertEquals("no_such_schema", e.value());
        assertTrue(e.getMessage().contains("search_path = 'no_such_schema'"), e.getMessage());
    }

    @Test
    void refusesReplicaReplicationRole() {
        SessionSettingException e = refused(List.of("session_replication_role = replica"), List.of());
        assertEquals("session_replication_role", e.setting());
        assertTrue(e.getMessage().contains("session_replication_role = 'replica'"), e.getMessage());
    }

    private static SessionSettingException refused(List<String> settings, List<String> sql) {
        String database = PgFixture.configuredDatabase(SERVER, settings, sql);
        try (HikariDataSource pool = SERVER.pool(database, 2)) {
            return assertThrows(SessionSettingException.class, () -> build(pool).close());
        }
    }
}
