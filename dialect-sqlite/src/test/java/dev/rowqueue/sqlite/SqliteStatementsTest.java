package dev.rowqueue.sqlite;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.InterceptingDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the stores talk to SQLite: statement counts, transactions and locks, which the TCK does not see. */
class SqliteStatementsTest {

    @TempDir
    Path dir;

    private SQLiteDataSource sqlite(String name) {
        SQLiteDataSource ds = new SQLiteDataSource();
        ds.setUrl("jdbc:sqlite:" + dir.resolve(name + ".db"));
        ds.setJournalMode("WAL");
        return ds;
    }

    private CountingDataSource counting(String name) {
        return new CountingDataSource(sqlite(name));
    }

    @Test
    void a_push_is_one_transaction_of_two_upserts_and_an_increment_is_one_statement() {
        CountingDataSource counting = counting("push");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            RingQueue ring = rq.ring("views", 3);
            Counters counters = rq.counters("hits");
            for (int i = 0; i < 5; i++) { // the first push creates the group's head row, the fourth wraps
                long commits = counting.commits();
                counting.record();
                ring.push("g", "p" + i);
                List<String> sql = counting.recorded();
                assertEquals(4, sql.size(), sql.toString());
                assertEquals(List.of("COMMIT", "BEGIN IMMEDIATE"), sql.subList(0, 2),
                        "the driver's deferred transaction replaced by one that takes the write lock");
                assertTrue(sql.get(2).startsWith("INSERT INTO views_head "), sql.get(2));
                assertTrue(sql.get(3).startsWith("INSERT INTO views "), sql.get(3));
                assertEquals(commits + 1, counting.commits(), "one transaction");
            }
            assertEquals(List.of(5L, 4L, 3L), ring.newestFirst("g").stream().map(RingEntry::seq).toList());
            counting.record();
            assertEquals(List.of(6L, 7L), ring.pushAll("g", List.of("a", "b")));
            assertEquals(4, counting.recorded().size(), "several payloads: the head, then the slots in one batch");
            long commits = counting.commits();
            counting.record();
            assertEquals(1, counters.increment("k"));
            assertEquals(5, counters.increment("k", 4));
            List<String> sql = counting.recorded();
            assertEquals(2, sql.size(), "one statement per increment: " + sql);
            assertEquals(commits, counting.commits(), "in auto-commit mode");
        }
    }

    @Test
    void newest_first_reads_with_a_limit_are_one_query_that_finds_the_slots_by_primary_key() throws SQLException {
        CountingDataSource counting = counting("newest");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            RingQueue ring = rq.ring("big", 10);
            ring.pushAll("g", List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"));
            counting.record();
            assertEquals(List.of("12", "11", "10"), ring.newestFirst("g", 3).stream().map(RingEntry::payload).toList());
            List<String> sql = counting.recorded();
            assertEquals(1, sql.size(), sql.toString());
            assertTrue(sql.get(0).startsWith("WITH RECURSIVE"), "counted down from the head row: " + sql.get(0));
            StringBuilder plan = new StringBuilder();
            try (Connection c = counting.getConnection();
                 PreparedStatement explain = c.prepareStatement("EXPLAIN QUERY PLAN " + sql.get(0))) {
                for (int i = 1; i <= 6; i++) { // :grp, :limit, :grp, :cap, :grp, :limit
                    explain.setObject(i, i % 2 == 1 ? "g" : (Object) 3);
                }
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.append(rs.getString("detail")).append('\n');
                    }
                }
            }
            assertTrue(plan.toString().matches("(?s).*SEARCH big USING INDEX \\S+ \\(grp=\\? AND slot=\\?\\).*"),
                    "the entries are looked up by (grp, slot), not scanned and sorted:\n" + plan);
        }
    }

    @Test
    void a_claim_is_a_lease_by_id_after_a_read_that_found_work_and_returns_claim_order() {
        CountingDataSource counting = counting("claim");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            WorkQueue q = rq.workQueue("jobs").create();
            counting.record();
            assertEquals(List.of(), q.claim(5));
            assertEquals(1, counting.recorded().size(), "an empty queue: the read alone, no write lock taken");
            q.enqueue("retried");
            Job retried = q.claim(1).get(0);
            q.enqueueAll(List.of("first", "second"), Enqueue.defaults());
            assertTrue(q.nack(retried, Duration.ofMillis(1)), "due after first and second, though enqueued before");
            q.enqueue("urgent", Enqueue.defaults().withPriority(5));
            long commits = counting.commits();
            awaitDue(q, 4);
            counting.record();
            List<Job> jobs = q.claim(10);
            List<String> sql = counting.recorded();
            assertEquals(List.of("urgent", "first", "second", "retried"), jobs.stream().map(Job::payload).toList(),
                    "priority, then due time, then id, although RETURNING has no order");
            assertEquals(2, sql.size(), sql.toString());
            assertTrue(sql.get(0).startsWith("SELECT id FROM jobs WHERE "), "the candidates' ids: " + sql.get(0));
            assertTrue(sql.get(1).matches("UPDATE jobs SET .* WHERE id IN \\(\\?, \\?, \\?, \\?\\) AND .* RETURNING .*"),
                    "one lease of those ids, no CTE or subquery: " + sql.get(1));
            assertEquals(commits, counting.commits(), "in auto-commit mode");
        }
    }

    @Test
    void a_claim_whose_candidates_were_taken_before_its_lease_reads_again() {
        SQLiteDataSource sqlite = sqlite("race");
        int[] raced = {0};
        InterceptingDataSource racing = new InterceptingDataSource(sqlite) {
            @Override
            protected Object aroundStatement(String sql, Method method, Object[] args, Call call) throws Throwable {
                if (sql != null && sql.startsWith("UPDATE jobs SET ") && method.getName().startsWith("execute")
                        && raced[0]++ == 0) {
                    // another process leases the first job between this claim's read and its lease
                    try (Connection other = sqlite.getConnection(); Statement s = other.createStatement()) {
                        assertEquals(1, s.executeUpdate("UPDATE jobs SET lease_token = 7, due_ms = due_ms + 60000"
                                + " WHERE payload = 'first'"));
                    }
                }
                return call.proceed();
            }
        };
        try (RowQueues rq = RowQueues.builder(racing).build()) {
            WorkQueue q = rq.workQueue("jobs").create();
            q.enqueueAll(List.of("first", "second"), Enqueue.defaults());
            List<Job> jobs = q.claim(1);
            assertEquals(2, raced[0], "a second lease, after a second read");
            assertEquals(List.of("second"), jobs.stream().map(Job::payload).toList(),
                    "the job the racer left, not nothing");
            assertEquals(List.of(), q.claim(1), "the racer's job is not leased twice");
        }
    }

    /** Waits until {@code n} jobs are due (the nacked one is due one millisecond after its nack). */
    private static void awaitDue(WorkQueue q, long n) {
        while (q.stats().ready() < n) {
            Thread.onSpinWait();
        }
    }

    @Test
    void transactions_take_the_write_lock_when_they_begin() throws SQLException {
        SqliteDialect dialect = new SqliteDialect(DatabaseProduct.assumed("SQLite", 3, 54));
        SQLiteDataSource ds = sqlite("lock");
        try (Connection first = ds.getConnection(); Connection second = ds.getConnection();
             Statement s = first.createStatement()) {
            s.execute("CREATE TABLE t (v INTEGER)");
            second.unwrap(SQLiteConnection.class).setBusyTimeout(1); // fail at once instead of waiting
            dialect.beginTransaction(first);
            SQLiteException e = assertThrows(SQLiteException.class, () -> {
                try (Statement other = second.createStatement()) {
                    other.execute("INSERT INTO t VALUES (1)");
                }
            }, "the first connection's transaction holds the write lock before it wrote anything");
            assertEquals(SQLiteErrorCode.SQLITE_BUSY.code, e.getErrorCode());
            first.commit();
            first.setAutoCommit(true);
            try (Statement other = second.createStatement()) {
                assertEquals(1, other.executeUpdate("INSERT INTO t VALUES (1)"), "and released it at commit");
            }
        }
    }

    @Test
    void a_connection_without_a_busy_timeout_gets_one() throws SQLException {
        SQLiteDataSource ds = sqlite("busy");
        ds.setBusyTimeout(0);
        try (RowQueues rq = RowQueues.builder(ds).build(); Connection c = ds.getConnection()) {
            assertEquals(0, c.unwrap(SQLiteConnection.class).getBusyTimeout());
            rq.counters("hits").using(c).increment("k");
            assertEquals(SqliteDialect.BUSY_TIMEOUT_MS, c.unwrap(SQLiteConnection.class).getBusyTimeout());
        }
    }

    /**
     * The lease of a claim's candidates finds them by primary key, whatever their number: written with {@code state =
     * 0 AND due_ms <= <now>}, SQLite 3.54 planned the lease of two ids or more as a search of the claim index on
     * {@code state}, walking every live job (a claim of 10 in a queue of 20,000 cost 740-1,100 µs instead of about
     * 140). The plan is read for the statements a claim of 1, 2 and 10 sends.
     */
    @Test
    void a_claims_lease_finds_its_candidates_by_primary_key_for_any_number_of_them() throws SQLException {
        CountingDataSource counting = counting("lease_plan");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            WorkQueue q = rq.workQueue("plan");
            q.enqueueAll(java.util.Collections.nCopies(100, "x"), Enqueue.defaults());
            for (int n : new int[] {1, 2, 10}) {
                counting.record();
                assertEquals(n, q.claim(n).size());
                List<String> leases = counting.recorded().stream().filter(sql -> sql.startsWith("UPDATE plan "))
                        .toList();
                assertEquals(1, leases.size(), "one lease: " + counting.recorded());
                List<String> plan = new java.util.ArrayList<>();
                try (Connection c = counting.getConnection();
                     PreparedStatement ps = c.prepareStatement("EXPLAIN QUERY PLAN " + leases.get(0))) {
                    for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) {
                        ps.setLong(i, i);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            plan.add(rs.getString("detail"));
                        }
                    }
                }
                assertTrue(plan.stream().anyMatch(d -> d.contains("USING INTEGER PRIMARY KEY")),
                        "a lease of " + n + " by primary key: " + plan);
                assertTrue(plan.stream().noneMatch(d -> d.contains("USING INDEX") || d.startsWith("SCAN")),
                        "a lease of " + n + " walks no index and scans nothing: " + plan);
            }
        }
    }
}
