package dev.rowqueue.postgres;

import dev.rowqueue.Enqueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.SQLException;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One-job claims write {@code LIMIT 1} into their statement, so that PostgreSQL's plan cache may reuse one generic
 * plan instead of planning every execution: on a queue that was never analyzed that plan is still the walk of the
 * partial claim index, never a scan of the table. The skewed queue (a million dead rows, ten ready jobs) is
 * {@code PostgresClaimPlanSoakTest}, outside the default build.
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
}
