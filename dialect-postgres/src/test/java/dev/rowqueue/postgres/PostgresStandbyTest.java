package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Counters;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.CountingDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client meets at a hot standby and at a primary whose synchronous standby is gone, on a
 * {@link ReplicatedPostgres} pair: a pool on the standby gets one clear read-only error per write (SQLState 25006)
 * and its LISTEN connection backs off; a commit that loses its connection while it waits for the standby is of
 * unknown outcome (PostgreSQL has committed it locally), on the pool and on a caller's connection alike; and a commit
 * whose wait is cancelled is reported by PostgreSQL, and so by rowqueue, as a success.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PostgresStandbyTest {

    private static final String DATABASE = "standby";
    private static final long PATIENCE_SECONDS = 60;

    private ReplicatedPostgres pg;
    private HikariDataSource primaryPool;
    private RowQueues primary;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    void start() {
        pg = ReplicatedPostgres.start(ReplicatedPostgres.Mode.SYNCHRONOUS, DATABASE);
        primaryPool = ReplicatedPostgres.pool(pg.url(DATABASE), "standby-test-primary", 8);
        primary = RowQueues.builder(primaryPool).build();
        primary.workQueue("sb_jobs").enqueue("created on the primary");
        primary.ring("sb_ring", 10).push("g", "created on the primary");
        primary.counters("sb_counts").increment("k");
    }

    @AfterAll
    void stop() {
        threads.shutdownNow();
        primary.close();
        primaryPool.close();
        pg.close();
    }

    @Test
    @Order(1)
    void every_write_through_a_pool_on_the_standby_fails_once_with_a_clear_read_only_error() {
        try (HikariDataSource pool = ReplicatedPostgres.pool(ReplicatedPostgres.url(pg.standby(), DATABASE),
                "standby-test-stale", 4)) {
            CountingDataSource counting = new CountingDataSource(pool);
            try (RowQueues rq = RowQueues.builder(counting).build()) {
                WorkQueue q = rq.workQueue("sb_jobs");
                RingQueue ring = rq.ring("sb_ring", 10);
                Counters counters = rq.counters("sb_counts");
                assertReadOnly(counting, "enqueue", () -> q.enqueue("to the standby"));
                assertReadOnly(counting, "claim", () -> q.claim(1));
                assertReadOnly(counting, "push", () -> ring.push("g", "to the standby"));
                assertReadOnly(counting, "increment", () -> counters.increment("k"));
                assertEquals(1, q.stats().total(), "reads work on the standby");
            }
        }
    }

    private static void assertReadOnly(CountingDataSource counting, String what, Executable write) {
        long before = counting.executions();
        RowQueueException e = assertThrows(RowQueueException.class, write, what);
        assertEquals(RowQueueException.class, e.getClass(), what + ": neither transient nor of unknown outcome: " + e);
        assertEquals("25006", e.sqlState(), what + ": " + e.getMessage());
        assertTrue(e.getMessage().contains("the database is read-only")
                && e.getMessage().contains("targetServerType=primary"), what + ": says why and what to do: "
                + e.getMessage());
        assertEquals(1, counting.executions() - before, what + ": one attempt, not retried");
    }

    @Test
    @Order(2)
    void a_blocking_claim_on_the_standby_does_not_make_its_listener_reconnect_in_a_loop() throws Exception {
        try (HikariDataSource pool = ReplicatedPostgres.pool(ReplicatedPostgres.url(pg.standby(), DATABASE),
                "standby-test-listen", 4)) {
            CountingDataSource counting = new CountingDataSource(pool);
            try (RowQueues rq = RowQueues.builder(counting).build()) {
                WorkQueue q = rq.workQueue("sb_jobs");
                RowQueueException e = assertThrows(RowQueueException.class, () -> q.claim(1, Duration.ofSeconds(1)));
                assertEquals("25006", e.sqlState());
                long before = counting.connections();
                TimeUnit.SECONDS.sleep(4);
                long connects = counting.connections() - before;
                // LISTEN fails on a standby ("cannot execute LISTEN during recovery"): with a backoff of 50 ms
                // doubling to 2 s, the listener asks for a connection 4 to 6 times in 4 s; at a fixed 50 ms, 80 times
                assertTrue(connects <= 8, "the listener asked for " + connects + " connections in 4 s");
            }
        }
    }

    @Test
    @Order(3)
    void a_commit_that_loses_its_connection_while_it_waits_for_the_synchronous_standby_is_of_unknown_outcome()
            throws Exception {
        WorkQueue q = primary.workQueue("sb_jobs");
        for (int i = 0; i < 3; i++) {
            q.enqueue("for rotate " + i);
        }
        pg.killStandby(); // from now on every commit on the primary waits for a standby that never comes
        CompletableFuture<Object> pooled = CompletableFuture.supplyAsync(() -> q.enqueue("pooled statement"), threads);
        CompletableFuture<Object> transaction = CompletableFuture.supplyAsync(() -> q.rotate("c", 1), threads);
        try (Connection caller = ReplicatedPostgres.connect(pg.primary(), DATABASE)) {
            // a ring push: enqueues notify, and PostgreSQL lets one notifying commit at a time wait for the standby
            CompletableFuture<Object> bound = CompletableFuture.supplyAsync(
                    () -> primary.ring("sb_ring", 10).using(caller).push("g", "caller's auto-commit connection"),
                    threads);
            String waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '" + DATABASE
                    + "' AND wait_event = 'SyncRep'";
            eventually("three commits wait for the standby", () -> queryLong(waiting) == 3, () -> activity()
                    + "; futures " + List.of(pooled, transaction, bound));
            assertEquals(3, queryLong("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '"
                    + DATABASE + "' AND wait_event = 'SyncRep'"));
            for (CompletableFuture<Object> f : List.of(pooled, transaction, bound)) {
                Throwable failure = assertThrows(Exception.class, () -> f.get(PATIENCE_SECONDS, TimeUnit.SECONDS))
                        .getCause();
                UnknownCommitOutcomeException e = assertInstanceOf(UnknownCommitOutcomeException.class, failure,
                        "a commit cut off while it waited is of unknown outcome, not transient: " + failure);
                assertTrue("57P01".equals(e.sqlState()) || e.sqlState().startsWith("08"), e.getMessage());
            }
        }
        // PostgreSQL committed them locally: "transient" (nothing applied) would have been a lie
        assertEquals(1, queryLong("SELECT COUNT(*) FROM sb_jobs WHERE payload = 'pooled statement'"));
        assertEquals(List.of("created on the primary", "caller's auto-commit connection"), primary.ring("sb_ring", 10)
                .oldestFirst("g").stream().map(RingEntry::payload).toList());
        assertEquals(1, queryLong("SELECT COUNT(*) FROM sb_jobs WHERE lease_token IS NOT NULL"), "rotate's lease");
    }

    /**
     * PostgreSQL's side of the contract, shown rather than fixed: a commit whose wait for the standby is cancelled is
     * reported as successful (with a WARNING that it might not have been replicated), so rowqueue reports success.
     */
    @Test
    @Order(4)
    void a_cancelled_wait_for_the_synchronous_standby_is_reported_by_postgresql_as_a_success() throws Exception {
        WorkQueue q = primary.workQueue("sb_jobs");
        if (pg.standby() != null) {
            pg.killStandby();
        }
        CompletableFuture<Long> enqueue = CompletableFuture.supplyAsync(() -> q.enqueue("cancelled wait"), threads);
        String waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '" + DATABASE
                + "' AND wait_event = 'SyncRep'";
        eventually("the commit waits for the standby", () -> queryLong(waiting) == 1, this::activity);
        assertEquals(1, queryLong("SELECT COUNT(pg_cancel_backend(pid)) FROM pg_stat_activity WHERE datname = '"
                + DATABASE + "' AND wait_event = 'SyncRep'"));
        long id = enqueue.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
        assertEquals(1, queryLong("SELECT COUNT(*) FROM sb_jobs WHERE id = " + id + " AND payload = 'cancelled wait'"),
                "committed on the primary only, and reported as enqueued");
    }

    private long queryLong(String sql) {
        try (Connection c = ReplicatedPostgres.connect(pg.primary(), DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private String activity() {
        StringBuilder b = new StringBuilder();
        try (Connection c = ReplicatedPostgres.connect(pg.primary(), DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT application_name, state, wait_event_type, wait_event, left(query, 60)"
                     + " FROM pg_stat_activity WHERE datname = '" + DATABASE + "'")) {
            while (rs.next()) {
                b.append("\n  ").append(rs.getString(1)).append(" | ").append(rs.getString(2)).append(" | ")
                        .append(rs.getString(3)).append(" | ").append(rs.getString(4)).append(" | ")
                        .append(rs.getString(5));
            }
        } catch (SQLException e) {
            b.append(e);
        }
        return b.toString();
    }

    private static void eventually(String what, BooleanSupplier condition, java.util.function.Supplier<String> state)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, () -> what + ": " + state.get());
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
