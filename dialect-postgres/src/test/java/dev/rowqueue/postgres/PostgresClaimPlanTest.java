package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-job claims write {@code LIMIT 1} into their statement, so that PostgreSQL's plan cache may reuse one generic
 * plan instead of planning every execution: on a queue that was never analyzed that plan is still the walk of the
 * partial claim index, never a scan of the table. The skewed queue (a million dead rows, ten ready jobs) is
 * {@code PostgresClaimPlanSoakTest}, outside the default build.
 *
 * <p>Claims under a per-key limit read the keys at their limit once, from the index of leased keyed jobs
 * ({@code <queue>_lsd}), instead of counting each candidate key's leases: a claim walks past every queued job of every
 * busy key, and with a count per candidate that was a subquery for each (issue 29, item 3).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresClaimPlanTest {

    private PgFixture db;

    @BeforeAll
    void open() {
        db = PgFixture.newest("claimplan");
    }

    @AfterAll
    void close() {
        db.close();
    }

    @Test
    void one_job_claims_on_a_queue_never_analyzed_reuse_a_generic_plan_that_walks_the_claim_index()
            throws SQLException {
        try (RowQueues rq = RowQueues.builder(db.pool).build()) {
            WorkQueue q = rq.workQueue("fresh").create();
            db.execute("ALTER TABLE fresh SET (autovacuum_enabled = false)"); // no autoanalyze during the test
            for (int i = 0; i < 10; i++) {
                q.enqueueAll(Collections.nCopies(500, "job"), Enqueue.defaults());
            }
        }
        assertEquals(0, db.queryLong("SELECT COUNT(*) FROM pg_stats WHERE tablename = 'fresh'"), "never analyzed");
        ClaimPlans.assertGenericIndexWalks("fresh", ClaimPlans.claimAndExplain(db, "fresh", () -> { }));
        assertEquals(0, db.queryLong("SELECT COUNT(*) FROM pg_stats WHERE tablename = 'fresh'"), "still not analyzed");
    }

    @Test
    void one_job_claims_on_an_analyzed_queue_reuse_a_generic_plan_that_walks_the_claim_index() throws SQLException {
        try (RowQueues rq = RowQueues.builder(db.pool).build()) {
            WorkQueue q = rq.workQueue("analyzed").create();
            for (int i = 0; i < 10; i++) {
                q.enqueueAll(Collections.nCopies(500, "job"), Enqueue.defaults());
            }
        }
        db.execute("ANALYZE analyzed");
        ClaimPlans.assertGenericIndexWalks("analyzed", ClaimPlans.claimAndExplain(db, "analyzed", () -> { }));
    }

    @Test
    void limited_claims_take_each_free_key_once_and_look_up_busy_keys_in_a_set_read_from_the_leased_index()
            throws SQLException {
        List<ClaimPlans.Prepared> prepared;
        try (HikariDataSource one = db.server.pool(db.database, 1)) { // one session: its prepared statements are read
            try (RowQueues rq = RowQueues.builder(one).build()) {
                WorkQueue q = rq.workQueue("busykeys", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(10))
                        .withMaxLeasedPerKey(1));
                for (int k = 0; k < 200; k++) { // five jobs a key, adjacent in claim order, as a customer's burst
                    q.enqueueAll(Collections.nCopies(5, "job"), Enqueue.defaults().withKey("k" + k));
                }
                db.execute("ANALYZE busykeys");
                Set<String> busy = new HashSet<>();
                for (int i = 0; i < ClaimPlans.EXECUTIONS; i++) { // pgjdbc prepares the statement on its fifth run
                    List<Job> jobs = q.claim(10);
                    assertEquals(10, jobs.size(), "ten free keys are left behind the busy ones");
                    for (Job j : jobs) {
                        assertTrue(busy.add(j.key()), "one job of key " + j.key() + " at a time, and a busy key is"
                                + " skipped: " + jobs);
                    }
                }
            }
            prepared = ClaimPlans.prepared(one);
        }
        assertFalse(prepared.isEmpty(), "the limited claim was prepared on the session");
        for (ClaimPlans.Prepared p : prepared) {
            String about = p.statement() + "\n" + p.plan();
            assertTrue(p.plan().contains("CTE at_limit"), "the keys at their limit are read once: " + about);
            assertTrue(p.plan().contains("Index Scan using busykeys_lsd on busykeys l"), "from the leased index: "
                    + about);
            assertTrue(p.plan().contains("hashed SubPlan"), "and a candidate's key is looked up in a hashed set: "
                    + about);
            assertFalse(p.plan().contains("busykeys_kls"), "no count of leases per candidate: " + about);
            assertFalse(p.plan().contains("Seq Scan on busykeys"), about);
        }
    }

    @Test
    void a_queue_whose_hand_made_schema_lacks_the_leased_index_is_claimed_from_by_counting_each_key()
            throws SQLException {
        try (RowQueues rq = RowQueues.builder(db.pool).build()) {
            WorkQueue q = rq.workQueue("handmade").create();
            for (int k = 0; k < 20; k++) {
                q.enqueueAll(Collections.nCopies(3, "job"), Enqueue.defaults().withKey("k" + k));
            }
        }
        db.execute("DROP INDEX handmade_lsd");
        List<ClaimPlans.Prepared> prepared;
        try (HikariDataSource one = db.server.pool(db.database, 1)) {
            try (RowQueues rq = RowQueues.builder(one).createSchema(false).build()) {
                WorkQueue q = rq.workQueue("handmade", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(10))
                        .withMaxLeasedPerKey(1));
                Set<String> keys = new HashSet<>();
                for (int i = 0; i < 6; i++) {
                    for (Job j : q.claim(3)) {
                        assertTrue(keys.add(j.key()), "one job of a key at a time: " + j.key());
                    }
                }
                assertEquals(18, keys.size());
            }
            prepared = ClaimPlans.prepared(one);
        }
        assertFalse(prepared.isEmpty());
        for (ClaimPlans.Prepared p : prepared) {
            assertFalse(p.plan().contains("at_limit"), "no set read from an index that is not there: " + p.plan());
            assertTrue(p.plan().contains("Aggregate"), "each candidate key's leases are counted: " + p.plan());
        }
    }
}
