package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-job claims ({@code LIMIT 1} written into the statement, their generic plan reused) on a skewed queue: a million
 * dead rows (jobs deleted, not yet vacuumed) and ten ready jobs, with the statistics of the full table and then with
 * those of the ten. The plan the server runs them with after pgjdbc prepared them is still the walk of the partial
 * claim index, never a scan of the table. It fills a million rows, so it runs outside the default build, with the soak
 * profile: {@code ./mvnw -Psoak -pl dialect-postgres -am verify -Dtest=PostgresClaimPlanSoakTest}. It also prints
 * (never asserts) the time a claim of one job takes with the limit written in and with it bound, interleaved on one
 * connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresClaimPlanSoakTest {

    private static final int DEAD = 1_000_000;
    private static final int READY = 10;
    /** The timed claims: jobs in their queue, blocks of each statement, claims per block. */
    private static final int TIMED_JOBS = 300_000;
    private static final int TIMED_BLOCKS = 10;
    private static final int TIMED_CLAIMS = 1_000;

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

    /**
     * Prints the time of a claim of one job with {@code LIMIT 1} written in (rowqueue's statement) and with the limit
     * bound ({@code LIMIT ?}, the statement of larger batches, bound to 1), in alternating blocks on one connection,
     * so that both see the same load. Nothing is asserted: it is a measurement.
     */
    @Test
    void a_claim_of_one_job_with_the_limit_written_in_and_bound_timed() throws SQLException {
        CountingDataSource counting = new CountingDataSource(db.pool);
        String written;
        String bound;
        try (RowQueues timed = RowQueues.builder(counting).build()) {
            WorkQueue t = timed.workQueue("timed", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)))
                    .create();
            String now = "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT)";
            db.execute("INSERT INTO timed (payload, prio, state, due_ms, attempts, enqueued_ms) SELECT 'job ' || g, 0,"
                    + " 0, " + now + " - 1000, 0, " + now + " FROM generate_series(1, " + TIMED_JOBS + ") g");
            db.execute("ANALYZE timed");
            counting.record();
            t.claim(1);
            written = counting.recorded().get(0);
            counting.record();
            t.claim(2);
            bound = counting.recorded().get(0);
        }
        assertTrue(written.contains("LIMIT 1 FOR UPDATE") && bound.contains("LIMIT ? FOR UPDATE"), written + bound);
        long[] nanos = new long[2]; // bound, written
        try (HikariDataSource one = db.server.pool(db.database, 1); Connection c = one.getConnection();
             PreparedStatement b = c.prepareStatement(bound); PreparedStatement w = c.prepareStatement(written)) {
            for (int block = 0; block < 2 * TIMED_BLOCKS + 2; block++) { // the first two blocks warm up
                boolean isWritten = block % 2 == 0;
                long start = System.nanoTime();
                for (int i = 0; i < TIMED_CLAIMS; i++) {
                    PreparedStatement ps = isWritten ? w : b;
                    int k = 1;
                    if (!isWritten) {
                        ps.setInt(k++, 1); // LIMIT ?, first in the text
                    }
                    ps.setLong(k++, 42); // lease token
                    ps.setLong(k, Duration.ofHours(1).toMillis()); // lease
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next(), "a job claimed");
                    }
                }
                if (block >= 2) {
                    nanos[isWritten ? 1 : 0] += System.nanoTime() - start;
                }
            }
        }
        double perBound = nanos[0] / 1e3 / TIMED_CLAIMS / TIMED_BLOCKS;
        double perWritten = nanos[1] / 1e3 / TIMED_CLAIMS / TIMED_BLOCKS;
        System.out.printf("a claim of one job, %d blocks of %d each, alternating on one connection: LIMIT ? %.0f µs,"
                + " LIMIT 1 %.0f µs (%.2fx as many claims a second)%n", TIMED_BLOCKS, TIMED_CLAIMS, perBound,
                perWritten, perBound / perWritten);
    }
}
