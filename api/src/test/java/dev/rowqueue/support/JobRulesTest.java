package dev.rowqueue.support;

import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link JobRules}: the fragments run on H2 against rows in each state, with a fixed clock ({@code now} = 1000), and
 * the Java forms of the rules ({@link JobRules#exhausted(int, int)}, {@link JobRules#attemptsAfterLease}) agree with
 * what the SQL did.
 */
class JobRulesTest {

    private static final String NOW = "1000";
    private static final int MAX = 3;

    private Connection c;

    /** A row of the jobs table. */
    private record Row(int state, long due, int attempts, Long token, String uniqueKey, String error) {
    }

    @BeforeEach
    void open() throws SQLException {
        c = DriverManager.getConnection("jdbc:h2:mem:");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jobs (id BIGINT PRIMARY KEY, state INT NOT NULL, due_ms BIGINT NOT NULL,"
                    + " attempts INT NOT NULL, lease_token BIGINT, unique_key VARCHAR(50), last_error VARCHAR(50))");
        }
    }

    @AfterEach
    void close() throws SQLException {
        c.close();
    }

    private void insert(long id, int state, long due, int attempts, Long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, NULL)")) {
            ps.setLong(1, id);
            ps.setInt(2, state);
            ps.setLong(3, due);
            ps.setInt(4, attempts);
            ps.setObject(5, token);
            ps.setString(6, "u" + id);
            ps.executeUpdate();
        }
    }

    private Map<Long, Row> rows() throws SQLException {
        Map<Long, Row> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, state, due_ms, attempts,"
                + " lease_token, unique_key, last_error FROM jobs")) {
            while (rs.next()) {
                long token = rs.getLong(5);
                Long leased = rs.wasNull() ? null : token;
                rows.put(rs.getLong(1), new Row(rs.getInt(2), rs.getLong(3), rs.getInt(4), leased, rs.getString(6),
                        rs.getString(7)));
            }
        }
        return rows;
    }

    private int update(String text, Map<String, Object> values) throws SQLException {
        Sql sql = Sql.of(text);
        try (PreparedStatement ps = sql.prepare(c)) {
            Sql.Binder b = sql.bind(ps);
            for (Map.Entry<String, Object> v : values.entrySet()) {
                if (v.getValue() instanceof String s) {
                    b.set(v.getKey(), s);
                } else {
                    b.set(v.getKey(), ((Number) v.getValue()).longValue());
                }
            }
            b.done();
            return ps.executeUpdate();
        }
    }

    /** Rows of every state: 1 never leased, 2 with an ended lease, 3 leased, 4 not due yet, 5 dead. */
    private void everyState() throws SQLException {
        insert(1, WorkTables.LIVE, 900, 1, null);
        insert(2, WorkTables.LIVE, 1000, 1, 7L);
        insert(3, WorkTables.LIVE, 1500, 1, 8L);
        insert(4, WorkTables.LIVE, 2000, 1, null);
        insert(5, WorkTables.DEAD, 500, 3, null);
    }

    private void leasesTheClaimableJobsCountingAnEndedLeaseAsAFailure(String statement) throws SQLException {
        everyState();
        Map<Long, Row> before = rows();
        assertEquals(2, update(statement, Map.of("token", 9L, "lease", 30L)), "the live, due jobs: 1 and 2");
        Map<Long, Row> after = rows();
        for (long id : new long[] {1, 2}) {
            Row was = before.get(id);
            Row is = after.get(id);
            assertEquals(JobRules.attemptsAfterLease(was.attempts(), was.token() != null), is.attempts(), "job " + id);
            assertEquals(9L, is.token());
            assertEquals(1030, is.due());
        }
        assertEquals(1, after.get(1L).attempts(), "never leased: no failure");
        assertEquals(2, after.get(2L).attempts(), "its lease ended without ack: one failure");
        for (long id : new long[] {3, 4, 5}) {
            assertEquals(before.get(id), after.get(id), "job " + id + " is not claimable");
        }
    }

    @Test
    void a_lease_takes_the_claimable_jobs_and_counts_an_ended_lease_as_a_failure() throws SQLException {
        leasesTheClaimableJobsCountingAnEndedLeaseAsAFailure("UPDATE jobs SET " + JobRules.lease(NOW) + " WHERE "
                + JobRules.claimable(NOW));
    }

    @Test
    void the_aliased_lease_and_claimable_test_do_the_same() throws SQLException {
        leasesTheClaimableJobsCountingAnEndedLeaseAsAFailure("UPDATE jobs q SET " + JobRules.lease("q", NOW)
                + " WHERE " + JobRules.claimable("q", NOW));
    }

    @Test
    void a_lease_until_a_given_end_sets_that_end() throws SQLException {
        insert(1, WorkTables.LIVE, 900, 0, 4L);
        assertEquals(1, update("UPDATE jobs SET " + JobRules.leaseUntil("", ":until") + " WHERE id = 1",
                Map.of("token", 9L, "until", 4242L)));
        assertEquals(new Row(WorkTables.LIVE, 4242, 1, 9L, "u1", null), rows().get(1L));
    }

    @Test
    void a_nack_makes_the_job_dead_exactly_when_the_java_rule_says_its_attempts_are_exhausted() throws SQLException {
        for (int attempts = 0; attempts <= MAX; attempts++) {
            insert(attempts, WorkTables.LIVE, 1500, attempts, 7L);
        }
        assertEquals(MAX + 1, update("UPDATE jobs SET " + JobRules.nack(NOW),
                Map.of("max", (long) MAX, "delay", 50L, "error", "boom")));
        Map<Long, Row> after = rows();
        for (int attempts = 0; attempts <= MAX; attempts++) {
            boolean dead = JobRules.exhausted(attempts + 1, MAX);
            assertEquals(new Row(dead ? WorkTables.DEAD : WorkTables.LIVE, 1050, attempts + 1, null,
                    dead ? null : "u" + attempts, "boom"), after.get((long) attempts), "a job nacked after "
                    + attempts + " failures");
        }
        assertEquals(WorkTables.LIVE, after.get((long) MAX - 2).state(), "two failures of three: live");
        assertEquals(WorkTables.DEAD, after.get((long) MAX - 1).state(), "the third failure of three: dead");
    }

    @Test
    void bury_release_and_revive_set_the_states_they_name() throws SQLException {
        insert(1, WorkTables.LIVE, 1500, 1, 7L);
        insert(2, WorkTables.LIVE, 1500, 1, 8L);
        update("UPDATE jobs SET " + JobRules.bury() + " WHERE id = 1", Map.of("error", "given up"));
        update("UPDATE jobs SET " + JobRules.release(NOW) + " WHERE id = 2", Map.of());
        assertEquals(new Row(WorkTables.DEAD, 1500, 1, null, null, "given up"), rows().get(1L));
        assertEquals(new Row(WorkTables.LIVE, 1000, 1, null, "u2", null), rows().get(2L), "no failure counted");
        update("UPDATE jobs SET " + JobRules.revive(NOW) + " WHERE id = 1", Map.of());
        assertEquals(new Row(WorkTables.LIVE, 1000, 0, null, null, "given up"), rows().get(1L));
    }

    @Test
    void the_java_rule_of_exhaustion_is_failures_reaching_the_maximum() {
        assertFalse(JobRules.exhausted(MAX - 1, MAX));
        assertTrue(JobRules.exhausted(MAX, MAX));
        assertTrue(JobRules.exhausted(MAX + 1, MAX));
    }
}
