package dev.rowqueue.postgres;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.SQLException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-job claims ({@code LIMIT 1} written into the statement, their generic plan reused) on a skewed queue: a million
 * dead rows (jobs deleted, not yet vacuumed) and ten ready jobs, with the statistics of the full table and then with
 * those of the ten. The plan the server runs them with after pgjdbc prepared them is still the walk of the partial
 * claim index, never a scan of the table. It fills a million rows, so it runs outside the default build, with the soak
 * profile: {@code ./mvnw -Psoak -pl dialect-postgres -am verify -Dtest=PostgresClaimPlanSoakTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresClaimPlanSoakTest {

    private static final int DEAD = 1_000_000;
    private static final int READY = 10;

    private PgFixture db;
    private RowQueues rq;
    private WorkQueue q;

    @BeforeAll
    void fill() {
        db = PgFixture.newest("skewed");
        rq = RowQueues.builder(db.pool).build();
        q = rq.workQueue("skewed").create();
        db.execute("ALTER TABLE skewed SET (autovacuum_enabled = false)"); // the dead rows stay
        long start = System.nanoTime();
        String now = "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)";
        db.execute("INSERT INTO skewed (payload, prio, state, due_ms, attempts, enqueued_ms)"
                + " SELECT 'job ' || g, 0, 0, " + now + " - 1000 + g % 100, 0, " + now
                + " FROM generate_series(1, " + DEAD + ") g");
        db.execute("ANALYZE skewed"); // the statistics of a million ready jobs
        db.execute("DELETE FROM skewed");
        for (int i = 0; i < READY; i++) {
            q.enqueue("ready");
        }
        System.out.printf("skewed: %d rows written and deleted in %d ms%n", DEAD,
                (System.nanoTime() - start) / 1_000_000);
    }

    @AfterAll
    void close() {
        rq.close();
        db.close();
    }

    /** Keeps ten jobs ready: one enqueued before each claim of one. */
    private void topUp() {
        q.enqueue("ready");
    }

    private void assertSkewed() {
        assertEquals(READY, db.queryLong("SELECT COUNT(*) FROM skewed"), "ten ready jobs");
        long pages = db.queryLong("SELECT pg_relation_size('skewed') / current_setting('block_size')::int");
        assertTrue(pages > 5_000, "the million dead rows are still in the table's " + pages + " pages");
    }

    @Test
    void with_the_statistics_of_a_million_ready_jobs() throws SQLException {
        assertSkewed();
        ClaimPlans.assertGenericIndexWalks("skewed", ClaimPlans.claimAndExplain(db, "skewed", this::topUp));
        assertSkewed();
    }

    @Test
    void with_the_statistics_of_ten_ready_jobs_and_a_million_dead_rows() throws SQLException {
        db.execute("ANALYZE skewed");
        assertEquals(READY, db.queryLong("SELECT CAST(reltuples AS BIGINT) FROM pg_class WHERE relname = 'skewed'"),
                "analyzed: ten live rows");
        assertSkewed();
        ClaimPlans.assertGenericIndexWalks("skewed", ClaimPlans.claimAndExplain(db, "skewed", this::topUp));
        assertSkewed();
    }
}
