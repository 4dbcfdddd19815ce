package dev.rowqueue.postgres;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.CountingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Once pgjdbc prepares a statement on the server, PostgreSQL may plan it once for any parameter values (a generic
 * plan), not knowing the claim's batch size. The claim and ack-and-claim statements must then still reach the jobs
 * through the primary key: a join of the locked candidates with the queue table was planned as a hash join over a
 * sequential scan of the whole queue (4.1 ms instead of 0.5 ms for a claim of 10 from 5,000 jobs), and the acks of
 * {@code id = ANY(:ids) ... AND state = 0} as a bitmap scan of the whole claim index (25 ms for 10 acks among 20,000
 * jobs). Checked with {@code EXPLAIN (GENERIC_PLAN)} (PostgreSQL 16+) on a new queue without statistics.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresGenericPlanTest {

    private PgFixture db;
    private CountingDataSource counting;
    private RowQueues rq;
    private WorkQueue q;

    @BeforeAll
    void open() {
        db = PgFixture.newest("generic");
        counting = new CountingDataSource(db.pool);
        rq = RowQueues.builder(counting).build();
        q = rq.workQueue("small");
        for (int i = 0; i < 10; i++) {
            q.enqueueAll(Collections.nCopies(500, "job"), Enqueue.defaults());
        }
        // no ANALYZE: a new queue has no statistics yet, which is when the planner guessed worst
    }

    @AfterAll
    void close() {
        rq.close();
        db.close();
    }

    /** @return the generic plan of a recorded statement, its {@code ?} numbered as {@code $1, $2, ...} */
    private String genericPlan(String sql) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        // the simple query protocol: pgjdbc would otherwise bind zero values to the $n placeholders
        try (Connection c = DriverManager.getConnection(db.server.url(db.database) + "?preferQueryMode=simple",
                "postgres", ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN (GENERIC_PLAN) " + numbered)) {
            StringBuilder plan = new StringBuilder();
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
            return plan.toString();
        }
    }

    private String recorded(Runnable operation) {
        counting.record();
        operation.run();
        List<String> statements = counting.recorded();
        assertEquals(1, statements.size(), "one statement: " + statements);
        return statements.get(0);
    }

    /** The queue is reached through its primary key, and the claim index serves only the claim's own scan. */
    private void assertNoScanOfTheQueue(String sql) throws SQLException {
        String plan = genericPlan(sql);
        assertFalse(plan.contains("Seq Scan on small"), plan);
        assertTrue(plan.contains("small_pkey"), plan);
        assertEquals(1, plan.split("small_due", -1).length - 1, "the claim index is used once, by the claim: " + plan);
    }

    @Test
    void the_newest_entries_of_a_safe_ring_are_found_through_the_primary_key_without_an_index_on_seq()
            throws SQLException {
        RingQueue ring = rq.ring("viewers", 10);
        for (int g = 0; g < 500; g++) {
            ring.pushAll("article-" + g, Collections.nCopies(12, "v"));
        }
        db.execute("ANALYZE viewers");
        assertEquals(0, db.queryLong("SELECT COUNT(*) FROM pg_indexes WHERE tablename = 'viewers'"
                + " AND indexname <> 'viewers_pkey'"), "the safe ring's entries have only their primary key");
        List<RingEntry> newest = new ArrayList<>();
        String sql = recorded(() -> newest.addAll(ring.newestFirst("article-7", 3)));
        assertEquals(List.of(12L, 11L, 10L), newest.stream().map(RingEntry::seq).toList());
        String plan = genericPlan(sql);
        assertFalse(plan.contains("Seq Scan on viewers"), plan);
        assertTrue(plan.contains("viewers_pkey"), plan);
    }

    @Test
    void acks_nacks_releases_and_lease_extensions_find_their_job_by_primary_key() throws SQLException {
        List<Job> jobs = q.claim(4);
        List<String> statements = List.of(
                recorded(() -> q.extendLease(jobs.get(0), java.time.Duration.ofMinutes(5))),
                recorded(() -> q.release(jobs.get(1))),
                recorded(() -> q.nack(jobs.get(2), java.time.Duration.ZERO)),
                recorded(() -> q.ack(jobs.get(3))));
        for (String sql : statements) {
            String plan = genericPlan(sql);
            assertTrue(plan.contains("small_pkey"), plan);
            assertFalse(plan.contains("small_due"), plan);
            assertFalse(plan.contains("Seq Scan on small"), plan);
        }
    }

    @Test
    void the_claims_generic_plan_reaches_the_jobs_through_the_primary_key() throws SQLException {
        List<Job> claimed = new ArrayList<>();
        assertNoScanOfTheQueue(recorded(() -> claimed.addAll(q.claim(10))));
        assertEquals(10, claimed.size());
    }

    @Test
    void the_generic_plans_of_ack_and_claim_reach_the_jobs_through_the_primary_key() throws SQLException {
        List<Job> held = new ArrayList<>(q.claim(3));
        assertNoScanOfTheQueue(recorded(() -> held.addAll(q.ackAndClaim(List.of(held.remove(0)), 10).claimed())));
        List<Job> done = new ArrayList<>(held);
        held.clear();
        assertNoScanOfTheQueue(recorded(() -> held.addAll(q.ackAndClaim(done, 10).claimed())));
        assertEquals(10, held.size());
    }
}
