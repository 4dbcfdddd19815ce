package dev.rowqueue.postgres;

import dev.rowqueue.Job;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.CountingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A work queue with a million live jobs, many of them leased, and 200,000 dead ones: the planner runs the claim on
 * the partial index of live jobs (never a scan of the table) and lists dead letters from their own partial index. The
 * claim's latency on this backlog is printed, not asserted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresBacklogTest {

    private static final int LIVE = 1_000_000;
    private static final int DEAD = 200_000;

    private PgFixture db;
    private CountingDataSource counting;
    private RowQueues rq;
    private WorkQueue q;

    @BeforeAll
    void fill() {
        db = PgFixture.newest("backlog");
        counting = new CountingDataSource(db.pool);
        rq = RowQueues.builder(counting).build();
        q = rq.workQueue("backlog", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(30))).create();
        long start = System.nanoTime();
        String now = "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)";
        db.execute("INSERT INTO backlog (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " SELECT 'job ' || g, g % 4, 0, " + now + " - 1000 + g % 100, 0, " + now
                + " FROM generate_series(1, " + LIVE + ") g");
        db.execute("INSERT INTO backlog (payload, prio, state, due_ms, attempts, enqueued_ms, last_error)"
                + " SELECT 'dead ' || g, 9, 1, " + now + ", 5, " + now + ", 'gave up'"
                + " FROM generate_series(1, " + DEAD + ") g");
        db.execute("ANALYZE backlog");
        System.out.printf("backlog: %d live and %d dead jobs written in %d ms%n", LIVE, DEAD,
                (System.nanoTime() - start) / 1_000_000);
    }

    @AfterAll
    void close() {
        rq.close();
        db.close();
    }

    private String explain(String sql, Object... parameters) throws SQLException {
        try (Connection c = db.pool.getConnection(); PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }

    @Test
    void claims_walk_the_partial_index_of_live_jobs_and_stay_one_statement() throws SQLException {
        for (int i = 0; i < 50; i++) {
            q.claim(100); // 5,000 leased jobs at the head of the index, as with busy consumers
        }
        counting.record();
        long start = System.nanoTime();
        int rounds = 100;
        int claimed = 0;
        for (int i = 0; i < rounds; i++) {
            claimed += q.claim(10).size();
        }
        long micros = (System.nanoTime() - start) / 1000 / rounds;
        List<String> statements = counting.recorded();
        assertEquals(rounds * 10, claimed);
        assertEquals(rounds, statements.size(), "one statement per claim");
        System.out.printf("backlog: claim(10) took %d us on average over %d claims (%d live jobs, %d dead)%n", micros,
                rounds, LIVE, DEAD);
        String plan = explain(statements.get(0), 10, 42L, 60_000L);
        assertTrue(plan.contains("backlog_due"), plan);
        assertFalse(plan.contains("Seq Scan on backlog"), plan);
    }

    @Test
    void dead_letters_are_listed_from_their_own_partial_index() throws SQLException {
        counting.record();
        List<Job> dead = q.deadLetters(50);
        assertEquals(50, dead.size());
        String plan = explain(counting.recorded().get(0), 50);
        assertTrue(plan.contains("backlog_dead"), plan);
        assertFalse(plan.contains("Seq Scan on backlog"), plan);
    }

    /**
     * The operators' job API on this backlog: a job by id and a cancel on the primary key, a page of dead jobs from
     * their partial index, a page of ready jobs on the primary key; the plans (with actual rows and time) are printed
     * for docs/console.md, and only the index choices are asserted.
     */
    @Test
    void the_job_api_reads_jobs_through_indexes_on_the_backlog() throws SQLException {
        long id = q.jobs(JobQuery.all().withState(JobState.READY).oldestFirst().withLimit(1)).jobs().get(0).id();
        counting.record();
        assertEquals(id, q.job(id).orElseThrow().id());
        String byId = explainAnalyze(counting.recorded().get(0), id);
        assertTrue(byId.contains("backlog_pkey"), byId);

        counting.record();
        assertEquals(500, q.jobs(JobQuery.all().withState(JobState.DEAD).oldestFirst().withLimit(500)).jobs().size());
        String dead = explainAnalyze(counting.recorded().get(0), 501);
        assertFalse(dead.contains("Seq Scan on backlog"), dead);

        counting.record();
        assertEquals(500, q.jobs(JobQuery.all().withState(JobState.READY).oldestFirst().withLimit(500).withAfter(id)).jobs().size());
        String ready = explainAnalyze(counting.recorded().get(0), id, 501);
        assertFalse(ready.contains("Seq Scan on backlog"), ready);

        counting.record();
        q.activity();
        String activity = explainAnalyze(counting.recorded().get(0), "backlog", 0L);
        System.out.printf("backlog: job(id)%n%s%nbacklog: jobs(DEAD, oldest first, 500)%n%s%nbacklog: jobs(READY, after a"
                + " cursor, 500)%n%s%nbacklog: activity()%n%s%n", byId, dead, ready, activity);
    }

    private String explainAnalyze(String sql, Object... parameters) throws SQLException {
        try (Connection c = db.pool.getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, COSTS OFF) " + sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }
}
