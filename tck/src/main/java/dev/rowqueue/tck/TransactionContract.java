package dev.rowqueue.tck;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.FaultyDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.util.HashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.List;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Transactions: the transactional outbox on a caller's connection, retries of transient failures, and the rule that a
 * retry never applies an operation twice.
 */
public abstract class TransactionContract extends Contract {

    private String businessTable() {
        String table = "biz_" + newName().substring(4);
        env().execute("CREATE TABLE " + table + " (id INTEGER NOT NULL, PRIMARY KEY (id))");
        return table;
    }

    private long rows(String table) {
        return env().jdbc(c -> {
            try (var s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    private static void insert(Connection c, String table, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id) VALUES (?)")) {
            ps.setInt(1, id);
            ps.executeUpdate();
        }
    }

    private void outbox(boolean commit) throws SQLException {
        // created before the caller's transaction: creating it inside would wait, on databases that lock the whole
        // file (SQLite), for the very transaction that waits for it
        WorkQueue q = rq().workQueue(newName()).create();
        RingQueue ring = rq().ring(newName(), 3);
        Counters counters = rq().counters(newName());
        String table = businessTable();
        try (Connection c = env().rawDataSource().getConnection()) {
            c.setAutoCommit(false);
            insert(c, table, 1);
            q.using(c).enqueue("order 1 placed");
            ring.using(c).push("orders", "order 1");
            counters.using(c).increment("orders");
            // uncommitted work is invisible to other connections: where readers do not wait for writers (multi-version
            // databases) they answer at once without it; where they wait (two-phase locking: HSQLDB's default,
            // Derby), they answer only once the writer's transaction has ended
            CompletableFuture<Long> total = CompletableFuture.supplyAsync(() -> q.stats().total());
            CompletableFuture<List<Job>> claim = CompletableFuture.supplyAsync(() -> q.claim(1));
            boolean readersWait = !answersAtOnce(total) || !answersAtOnce(claim);
            if (!readersWait) {
                assertEquals(0, total.join(), "uncommitted work is invisible to other connections");
                assertEquals(List.of(), claim.join());
            }
            if (commit) {
                c.commit();
            } else {
                c.rollback();
            }
            if (readersWait) {
                total.join();
                List<Job> late = claim.join();
                assertTrue(late.size() <= (commit ? 1 : 0), "a claim that waited sees only committed work: " + late);
            }
            assertTrue(c.getAutoCommit() == false, "rowqueue leaves the caller's transaction mode alone");
        } finally {
            long expected = commit ? 1 : 0;
            assertEquals(expected, rows(table));
            env().execute("DROP TABLE " + table);
        }
        long expected = commit ? 1 : 0;
        assertEquals(expected, q.stats().total());
        assertEquals(expected, ring.size("orders"));
        assertEquals(expected, counters.get("orders"));
    }

    /** Whether a read on another connection answers within a few seconds (it does unless it waits for a lock). */
    private static boolean answersAtOnce(CompletableFuture<?> read) {
        try {
            read.get(3, TimeUnit.SECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (ExecutionException e) {
            throw new AssertionError("a read on another connection failed", e.getCause());
        }
    }

    @Test
    void work_on_the_callers_connection_commits_with_the_business_write() throws SQLException {
        outbox(true);
    }

    @Test
    void work_on_the_callers_connection_rolls_back_with_the_business_write() throws SQLException {
        outbox(false);
    }

    @Test
    void ack_and_claim_on_the_callers_connection_commits_or_rolls_back_with_the_business_write() throws SQLException {
        WorkQueue q = rq().workQueue(newName());
        q.enqueueAll(List.of("first", "second"), Enqueue.defaults());
        Job first = q.claim(1).get(0);
        String table = businessTable();
        try {
            for (boolean commit : new boolean[] {false, true}) {
                try (Connection c = env().rawDataSource().getConnection()) {
                    c.setAutoCommit(false);
                    insert(c, table, commit ? 2 : 1);
                    Handoff h = q.using(c).ackAndClaim(List.of(first), 1);
                    assertTrue(h.allAcked());
                    assertEquals(List.of("second"), WorkQueueContract.payloads(h.claimed()));
                    if (commit) {
                        c.commit();
                    } else {
                        c.rollback();
                    }
                }
                assertEquals(commit ? 1 : 0, rows(table));
                assertEquals(commit ? 1 : 2, q.stats().total(), commit ? "the ack committed" : "the ack rolled back");
                assertEquals(commit ? 0 : 1, q.stats().ready(), commit ? "the claim committed" : "so did the claim");
            }
        } finally {
            env().execute("DROP TABLE " + table);
        }
    }

    @Test
    void a_bound_handle_on_an_auto_commit_connection_commits_each_operation_atomically() throws SQLException {
        RingQueue ring = rq().ring(newName(), 2);
        Counters counters = rq().counters(newName());
        try (Connection c = env().rawDataSource().getConnection()) {
            c.setAutoCommit(true);
            ring.using(c).pushAll("g", List.of("a", "b", "c"));
            assertEquals(3, counters.using(c).increment("k", 3));
            assertTrue(c.getAutoCommit(), "auto-commit is restored");
        }
        assertEquals(List.of("b", "c"), RingContract.payloads(ring.oldestFirst("g")));
        assertEquals(3, counters.get("k"));
    }

    @Test
    void a_deadlock_before_the_work_ran_is_retried_and_the_work_applies_once() {
        RingQueue ring = rq().ring(newName(), 5);
        WorkQueue q = rq().workQueue(newName());
        Counters counters = rq().counters(newName());
        FaultyDataSource faults = env().faults();
        int fired = faults.fired();
        faults.arm(FaultyDataSource.Point.EXECUTE, 1, false,
                () -> new SQLTransactionRollbackException("injected deadlock", "40001", 1213));
        assertEquals(1, ring.push("g", "once"));
        faults.arm(FaultyDataSource.Point.EXECUTE, 1, false,
                () -> new SQLTransactionRollbackException("injected deadlock", "40P01"));
        q.enqueue("once");
        faults.arm(FaultyDataSource.Point.EXECUTE, 1, false,
                () -> new SQLTransactionRollbackException("injected serialization failure", "40001"));
        assertEquals(1, counters.increment("k"));
        assertEquals(fired + 3, faults.fired(), "every fault struck");
        assertEquals(1, ring.size("g"));
        assertEquals(1, q.stats().total());
        assertEquals(1, counters.get("k"));
    }

    @Test
    void a_connection_refused_before_any_work_is_retried() {
        RingQueue ring = rq().ring(newName(), 5);
        env().faults().arm(FaultyDataSource.Point.CONNECT, 1, false,
                () -> new SQLTransientConnectionException("injected: connection refused", "08001"));
        assertEquals(1, ring.push("g", "x"));
        assertEquals(1, ring.size("g"));
    }

    @Test
    void a_lost_answer_never_applies_a_push_an_enqueue_or_an_increment_twice() {
        RingQueue ring = rq().ring(newName(), 1000);
        WorkQueue q = rq().workQueue(newName());
        Counters counters = rq().counters(newName());
        int round = 0;
        for (FaultyDataSource.Point point : List.of(FaultyDataSource.Point.EXECUTE, FaultyDataSource.Point.COMMIT)) {
            for (int nth = 1; nth <= (point == FaultyDataSource.Point.EXECUTE ? 5 : 1); nth++) {
                String payload = "round-" + ++round;
                atMostOnce(point, nth, () -> ring.push("g", payload),
                        () -> ring.oldestFirst("g").stream().filter(e -> e.payload().equals(payload)).count());
                atMostOnce(point, nth, () -> q.enqueue(payload), () -> q.stats().total());
                atMostOnce(point, nth, () -> counters.increment("k"), () -> counters.get("k"));
            }
        }
        List<RingEntry> entries = ring.oldestFirst("g");
        assertEquals(entries.size(), new HashSet<>(entries.stream().map(RingEntry::seq).toList()).size(),
                "no sequence number was given twice");
    }

    /**
     * Runs an operation while the n-th call at {@code point} loses its answer after reaching the database: the
     * operation either succeeds and applied once, or reports an unknown outcome and applied at most once.
     */
    private void atMostOnce(FaultyDataSource.Point point, int nth, Runnable operation, LongSupplier count) {
        FaultyDataSource faults = env().faults();
        long before = count.getAsLong();
        int firedBefore = faults.fired();
        faults.arm(point, nth, true, () -> new SQLException("injected: connection reset, answer lost", "08S01"));
        try {
            operation.run();
            faults.disarm();
            assertEquals(before + 1, count.getAsLong(), "a successful operation applied exactly once (fault at "
                    + point + " #" + nth + (faults.fired() > firedBefore ? ", struck)" : ", not reached)"));
        } catch (UnknownCommitOutcomeException e) {
            faults.disarm();
            long after = count.getAsLong();
            assertTrue(after == before || after == before + 1,
                    "an operation of unknown outcome applied at most once: " + before + " -> " + after);
            assertNotNull(e.sqlState());
        }
    }

    @Test
    void errors_carry_the_sqlstate_and_vendor_code() {
        String name = newName();
        WorkQueue q = rq().workQueue(name).create();
        env().execute("DROP TABLE " + name);
        SchemaException e = assertThrows(SchemaException.class, () -> q.enqueue("x"));
        SQLException driver = assertInstanceOf(SQLException.class, e.getCause(), "the driver's exception is the cause");
        assertEquals(driver.getSQLState(), e.sqlState(), "the driver's SQLState, where it reports one");
        assertEquals(driver.getErrorCode(), e.vendorCode(), "the driver's vendor code");
        assertTrue(e.sqlState() != null || e.vendorCode() != 0, "an SQLState or a vendor code: " + e.getMessage());
        assertTrue(e.getMessage().contains("SQLState"), e.getMessage());
        assertTrue(e instanceof RowQueueException);
    }

    @Test
    void with_retries_off_a_transient_failure_surfaces_with_its_sqlstate() {
        String name = newName();
        try (RowQueues noRetry = env().builder().retry(RetryPolicy.none()).build()) {
            Counters counters = noRetry.counters(name);
            env().faults().arm(FaultyDataSource.Point.EXECUTE, 1, false,
                    () -> new SQLTransactionRollbackException("injected deadlock", "40001", 1213));
            TransientRowQueueException e = assertThrows(TransientRowQueueException.class,
                    () -> counters.increment("k"));
            assertEquals("40001", e.sqlState());
            assertEquals(1213, e.vendorCode());
            assertEquals(0, counters.get("k"), "nothing applied");
        }
    }

    @Test
    void a_handle_bound_to_a_connection_reports_transient_failures_for_the_caller_to_retry() throws SQLException {
        Counters counters = rq().counters(newName());
        try (Connection c = env().faults().getConnection()) {
            c.setAutoCommit(false);
            env().faults().arm(FaultyDataSource.Point.EXECUTE, 1, false,
                    () -> new SQLTransactionRollbackException("injected deadlock", "40001"));
            assertThrows(TransientRowQueueException.class, () -> counters.using(c).increment("k"));
            c.rollback();
        }
        assertEquals(0, counters.get("k"));
    }
}
