package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.CounterOverflowException;
import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SequenceExhaustedException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.testkit.CountingDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the dialect relies on, checked on the embedded MariaDB through both drivers: the driver returns
 * {@code LAST_INSERT_ID(expr)} as the generated key on the UPDATE branch too and for negative and extreme values;
 * statements per operation; the clock under odd session time zones; real server errors and their classification.
 */
class ServerBehaviourTest extends EmbeddedServerTest {

    @Override
    protected String database() {
        return "it_behaviour";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "+05:45", false);
    }

    // ---------------------------------------------------------------- LAST_INSERT_ID through both drivers

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void counters_read_the_new_value_as_the_generated_key_in_one_statement(EmbeddedMariaDb.Driver driver) {
        CountingDataSource counting = new CountingDataSource(pools.get(driver));
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            Counters c = rq.counters(name("ctr", driver));
            long before = counting.executions();
            assertEquals(5, c.increment("k", 5), "insert branch");
            assertEquals(1, counting.executions() - before, "one statement: the value is the generated key");
            before = counting.executions();
            assertEquals(12, c.increment("k", 7), "update branch (2 affected rows)");
            assertEquals(-30, c.increment("k", -42), "negative: LAST_INSERT_ID() is unsigned, read back signed");
            assertEquals(2, counting.executions() - before, "one statement each");
            before = counting.executions();
            assertEquals(0, c.increment("k", 30), "0: no generated key, asked of the server");
            assertEquals(2, counting.executions() - before, "the statement and SELECT LAST_INSERT_ID()");
            c.set("k", Long.MAX_VALUE - 1);
            assertEquals(Long.MAX_VALUE, c.increment("k"));
            assertThrows(CounterOverflowException.class, () -> c.increment("k"));
            assertEquals(Long.MAX_VALUE, c.get("k"));
            assertEquals(-1, c.increment("k", Long.MIN_VALUE), "the most negative delta is signed arithmetic");
            assertEquals(Long.MIN_VALUE, c.increment("fresh", Long.MIN_VALUE), "and creates a counter");
            assertThrows(CounterOverflowException.class, () -> c.increment("fresh", -1));
            assertEquals(Long.MIN_VALUE, c.get("fresh"));
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void a_safe_push_is_one_insert_through_the_trigger_and_a_compound_statement_when_it_overflows_the_ring(
            EmbeddedMariaDb.Driver driver) throws SQLException {
        CountingDataSource counting = new CountingDataSource(pools.get(driver));
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            RingQueue ring = rq.ring(name("ring", driver), 3);
            ring.push("g", "warm-up");
            counting.record();
            long commits = counting.commits();
            long session = counting.sessionCalls();
            assertEquals(2, ring.push("g", "one"));
            List<String> one = counting.recorded();
            assertEquals(1, one.size(), one.toString());
            assertTrue(one.get(0).startsWith("INSERT INTO") && one.get(0).endsWith("RETURNING seq"), one.get(0));
            counting.record();
            assertEquals(List.of(3L, 4L, 5L), ring.pushAll("g", List.of("a", "b", "c")));
            assertEquals(1, counting.recorded().size(), "a push of up to the capacity is one statement");
            counting.record();
            assertEquals(List.of(6L, 7L, 8L, 9L, 10L), ring.pushAll("g", List.of("v", "w", "x", "y", "z")));
            List<String> five = counting.recorded();
            assertEquals(1, five.size(), five.toString());
            assertTrue(five.get(0).startsWith("BEGIN NOT ATOMIC") && five.get(0).contains("LAST_INSERT_ID(last_seq + ?)")
                    && five.get(0).contains("START TRANSACTION") && five.get(0).contains("COMMIT"), five.get(0));
            assertEquals(commits, counting.commits(), "no JDBC commit: auto-commit, or the compound commits inside");
            assertEquals(session, counting.sessionCalls(), "no auto-commit or isolation switch");
            assertEquals(List.of("x", "y", "z"), ring.oldestFirst("g").stream().map(RingEntry::payload).toList());
            try (Connection c = counting.getConnection()) {
                c.setAutoCommit(false);
                counting.record();
                assertEquals(11, ring.using(c).push("g", "in my transaction"));
                List<String> mine = counting.recorded();
                counting.record();
                assertEquals(List.of(12L, 13L, 14L, 15L), ring.using(c).pushAll("g", List.of("p", "q", "r", "s")));
                List<String> overflowing = counting.recorded();
                c.rollback();
                assertEquals(1, mine.size(), "the trigger's INSERT needs no transaction statements " + mine);
                assertEquals(2, overflowing.size(), "a START TRANSACTION would commit the caller's work: plain"
                        + " statements " + overflowing);
            }
            assertEquals(List.of("x", "y", "z"), ring.oldestFirst("g").stream().map(RingEntry::payload).toList(),
                    "rolled back with the caller's transaction");
            assertEquals(List.of(10L, 9L), ring.newestFirst("g", 2).stream().map(RingEntry::seq).toList());
        }
    }

    @Test
    void the_push_trigger_numbers_only_placeholder_rows_and_a_ring_without_it_pushes_with_the_compound_statement()
            throws SQLException {
        String queue = name("trg", "x");
        RingTables t = RingTables.of(queue);
        HikariDataSource pool = pools.get(EmbeddedMariaDb.Driver.MARIADB);
        try (RowQueues rq = RowQueues.builder(pool).build(); Connection c = pool.getConnection();
             Statement s = c.createStatement()) {
            RingQueue ring = rq.ring(queue, 4);
            assertEquals(List.of(1L, 2L), ring.pushAll("g", List.of("a", "b")));
            // a row with its own number (a migration copying a ring, an older rowqueue) passes the trigger untouched
            s.executeUpdate("INSERT INTO " + t.entries() + " (grp, slot, seq, payload, pushed_ms)"
                    + " VALUES ('h', 3, 7, 'copied', 0)");
            assertEquals(List.of(7L), ring.newestFirst("h").stream().map(RingEntry::seq).toList());
            assertEquals(0, count(s, "SELECT COUNT(*) FROM " + t.heads() + " WHERE grp = 'h'"), "no head bumped");
            // the check refuses the placeholder where no trigger numbers it
            s.execute("DROP TRIGGER " + MySqlRing.triggerName(t));
            SQLException refused = assertThrows(SQLException.class, () -> s.executeUpdate("INSERT INTO " + t.entries()
                    + " (grp, slot, seq, payload, pushed_ms) VALUES ('g', 0, -1, 'lost?', 0)"));
            assertEquals(4025, refused.getErrorCode(), refused.toString());
            // this store found the trigger at its first push: its next push fails the check, writes nothing, and
            // goes the compound way from then on
            assertEquals(3, ring.push("g", "c"));
            assertEquals(List.of(4L, 5L), ring.pushAll("g", List.of("d", "e")));
            assertEquals(List.of("b", "c", "d", "e"), ring.oldestFirst("g").stream().map(RingEntry::payload).toList());
        }
        try (RowQueues rq = RowQueues.builder(pool).createSchema(false).build()) {
            RingQueue ring = rq.ring(queue, 4);
            assertEquals(6, ring.push("g", "f"), "a ring without its trigger (schema creation off) still pushes");
            assertEquals(List.of("f", "e"), ring.newestFirst("g", 2).stream().map(RingEntry::payload).toList());
        }
        try (RowQueues rq = RowQueues.builder(pool).build(); Connection c = pool.getConnection();
             Statement s = c.createStatement()) {
            rq.ring(queue, 4);
            assertEquals(1, count(s, "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()"
                    + " AND TRIGGER_NAME = '" + MySqlRing.triggerName(t) + "'"), "opening it again restores it");
        }
    }

    @Test
    void a_newest_first_read_with_a_limit_reads_its_slots_not_the_whole_group() throws SQLException {
        HikariDataSource pool = pools.get(EmbeddedMariaDb.Driver.MARIADB);
        try (RowQueues rq = RowQueues.builder(pool).build(); Connection c = pool.getConnection();
             Statement s = c.createStatement()) {
            RingQueue ring = rq.ring(name("wide", "x"), 1000);
            List<String> payloads = IntStream.range(0, 1500).mapToObj(i -> "p" + i).toList();
            for (int i = 0; i < payloads.size(); i += 100) {
                ring.pushAll("g", payloads.subList(i, i + 100));
            }
            ring.pushAll("other", List.of("x", "y"));
            for (int limit : List.of(1, 5, 600, 999)) {
                s.execute("FLUSH STATUS");
                List<RingEntry> read = ring.using(c).newestFirst("g", limit);
                long rows = count(s, "SELECT SUM(VARIABLE_VALUE) FROM information_schema.SESSION_STATUS"
                        + " WHERE VARIABLE_NAME IN ('HANDLER_READ_KEY', 'HANDLER_READ_NEXT', 'HANDLER_READ_PREV',"
                        + " 'HANDLER_READ_FIRST', 'HANDLER_READ_LAST', 'HANDLER_READ_RND_NEXT')");
                assertEquals(LongStream.rangeClosed(1501 - limit, 1500).boxed()
                                .sorted(Comparator.reverseOrder()).toList(),
                        read.stream().map(RingEntry::seq).toList(), "limit " + limit);
                assertTrue(rows <= limit + 4, "limit " + limit + ": " + rows + " index reads for a group of 1,000");
            }
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void a_claim_is_one_compound_statement_on_mariadb_and_leases_in_claim_order(EmbeddedMariaDb.Driver driver) {
        CountingDataSource counting = new CountingDataSource(pools.get(driver));
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            WorkQueue q = rq.workQueue(name("cl", driver));
            long low = q.enqueue("low");
            long high = q.enqueue("high", Enqueue.defaults().withPriority(5));
            long later = q.enqueue("later");
            counting.record();
            List<Job> jobs = q.claim(2);
            List<String> sent = counting.recorded();
            assertEquals(1, sent.size(), sent.toString());
            assertTrue(sent.get(0).startsWith("BEGIN NOT ATOMIC") && sent.get(0).contains("FOR UPDATE SKIP LOCKED"),
                    sent.get(0));
            assertEquals(List.of(high, low), jobs.stream().map(Job::id).toList(), "priority, then due time and id");
            assertEquals(List.of("high", "low"), jobs.stream().map(Job::payload).toList());
            assertEquals(List.of(later), q.claim(5).stream().map(Job::id).toList(), "leased jobs are not claimed again");
            assertTrue(q.claim(5).isEmpty());
            assertTrue(q.ack(jobs.get(0)));
            assertEquals(2, q.stats().leased());
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void drivers_that_prepare_on_the_server_send_the_compound_statements_too(EmbeddedMariaDb.Driver driver) {
        String url = server.url(driver, database()) + (driver == EmbeddedMariaDb.Driver.MARIADB ? "?" : "&")
                + "useServerPrepStmts=true" + (driver == EmbeddedMariaDb.Driver.MYSQL ? "&emulateUnsupportedPstmts=false" : "");
        try (com.zaxxer.hikari.HikariDataSource pool = MySqlTargets.pool(url, "root", "", session(), "server-prepared")) {
            CountingDataSource counting = new CountingDataSource(pool);
            try (RowQueues rq = RowQueues.builder(counting).build()) {
                RingQueue ring = rq.ring(name("sp", driver), 2);
                long commits = counting.commits();
                assertEquals(List.of(1L, 2L, 3L), ring.pushAll("g", List.of("a", "b", "c")));
                assertEquals(4, ring.push("g", "d"));
                WorkQueue q = rq.workQueue(name("sq", driver));
                List<Long> ids = q.enqueueAll(List.of("x", "y"), Enqueue.defaults());
                List<Job> jobs = q.claim(2);
                assertEquals(commits, counting.commits(), "compound statements, no JDBC transaction");
                assertEquals(List.of("c", "d"), ring.oldestFirst("g").stream().map(RingEntry::payload).toList());
                assertEquals(ids, jobs.stream().map(Job::id).toList());
                assertEquals(List.of("x", "y"), jobs.stream().map(Job::payload).toList());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void the_single_writer_push_reads_its_sequence_number_as_the_generated_key(EmbeddedMariaDb.Driver driver) {
        for (String statement : List.of("upsert", "replace")) {
            CountingDataSource counting = new CountingDataSource(pools.get(driver));
            try (RowQueues rq = RowQueues.builder(counting).dialectOption(MySqlDialect.OPTION_SINGLE_WRITER, statement)
                    .build()) {
                RingQueue ring = rq.ring(name("sw", driver), dev.rowqueue.RingOptions.ofCapacity(2)
                        .withStrategy(dev.rowqueue.RingStrategy.SINGLE_WRITER));
                long before = counting.executions();
                assertEquals(1, ring.push("g", "a"));
                assertEquals(1, counting.executions() - before, statement + ": one statement");
                assertEquals(2, ring.push("g", "b"));
                assertEquals(3, ring.push("g", "c"), statement + " wraps onto slot 1");
                assertEquals(List.of("b", "c"), ring.oldestFirst("g").stream().map(RingEntry::payload).toList());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void a_batch_enqueue_is_one_compound_insert_returning_that_reads_the_clock_once(EmbeddedMariaDb.Driver driver)
            throws SQLException {
        CountingDataSource counting = new CountingDataSource(pools.get(driver));
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            WorkQueue q = rq.workQueue(name("wq", driver)).create();
            counting.record();
            List<Long> ids = q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults().withPriority(3));
            List<String> sent = counting.recorded();
            assertEquals(1, sent.size(), sent.toString());
            assertTrue(sent.get(0).startsWith("BEGIN NOT ATOMIC DECLARE v_now BIGINT DEFAULT")
                    && sent.get(0).endsWith("RETURNING id; END"), sent.get(0));
            assertEquals(1, sent.get(0).split("UTC_TIMESTAMP", -1).length - 1, "the clock is read once");
            assertEquals(List.of(ids.get(0), ids.get(0) + 1, ids.get(0) + 2), ids);
            List<Job> claimed = q.claim(3);
            assertEquals(ids, claimed.stream().map(Job::id).toList());
            assertEquals(List.of("a", "b", "c"), claimed.stream().map(Job::payload).toList(), "ids in payload order");
            assertTrue(claimed.stream().allMatch(j -> j.priority() == 3));
            List<Long> delayed = q.enqueueAll(List.of("x", "y"), Enqueue.defaults().withDelay(Duration.ofHours(1)));
            try (Connection c = connect(driver); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, payload, prio, state, attempts, enqueued_ms, due_ms FROM "
                         + q.name() + " WHERE id >= " + delayed.get(0) + " ORDER BY id")) {
                for (int i = 0; i < 2; i++) {
                    assertTrue(rs.next());
                    assertEquals(delayed.get(i), rs.getLong("id"));
                    assertEquals(List.of("x", "y").get(i), rs.getString("payload"));
                    assertEquals(0, rs.getInt("prio"));
                    assertEquals(0, rs.getInt("state"));
                    assertEquals(0, rs.getInt("attempts"));
                    assertEquals(3_600_000L, rs.getLong("due_ms") - rs.getLong("enqueued_ms"), "due: enqueued + delay");
                    assertTrue(Math.abs(rs.getLong("enqueued_ms") - System.currentTimeMillis()) < 60_000,
                            "the server's UTC clock in epoch milliseconds");
                }
                assertTrue(!rs.next());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void a_batch_enqueue_in_a_callers_transaction_rolls_back_with_it(EmbeddedMariaDb.Driver driver)
            throws SQLException {
        try (RowQueues rq = RowQueues.builder(pools.get(driver)).build(); Connection c = connect(driver)) {
            WorkQueue q = rq.workQueue(name("wt", driver)).create();
            c.setAutoCommit(false);
            List<Long> ids = q.using(c).enqueueAll(List.of("a", "b"), Enqueue.defaults());
            assertEquals(2, ids.size());
            c.rollback();
            assertTrue(q.claim(5).isEmpty(), "the compound statement has no transaction of its own");
            ids = q.using(c).enqueueAll(List.of("c", "d"), Enqueue.defaults());
            c.commit();
            assertEquals(ids, q.claim(5).stream().map(Job::id).toList());
        }
    }

    // ---------------------------------------------------------------- time

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void times_are_utc_epoch_milliseconds_whatever_the_session_and_jvm_time_zones(EmbeddedMariaDb.Driver driver)
            throws SQLException {
        assertEquals("Pacific/Chatham", TimeZone.getDefault().getID(), "surefire runs the JVM far from UTC");
        String ring = name("clock", driver);
        try (RowQueues rq = RowQueues.builder(pools.get(driver)).build()) {
            rq.ring(ring, 10);
        }
        for (String zone : List.of("+05:45", "-09:30", "+13:00", "-12:00", "SYSTEM")) {
            try (Connection c = connect(driver)) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET time_zone = '" + zone + "'");
                }
                try (RowQueues rq = RowQueues.builder(new SingleConnection(c)).build()) {
                    Instant before = Instant.now();
                    RingQueue r = rq.ring(ring, 10);
                    r.using(c).push(zone, "x");
                    Instant pushed = r.using(c).latest(zone).orElseThrow().pushedAt();
                    Instant after = Instant.now();
                    assertTrue(!pushed.isBefore(before.minusSeconds(2)) && !pushed.isAfter(after.plusSeconds(2)),
                            "session time_zone " + zone + ": pushed at " + pushed + ", expected between " + before
                                    + " and " + after);
                }
            }
        }
    }

    // ---------------------------------------------------------------- real errors

    private SQLException failure(EmbeddedMariaDb.Driver driver, String sql) throws SQLException {
        try (Connection c = connect(driver); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            return e;
        }
        fail("no error from " + sql);
        return null;
    }

    private SqlErrorKind classify(SQLException e) throws SQLException {
        try (Connection c = pools.get(EmbeddedMariaDb.Driver.MARIADB).getConnection()) {
            MySqlDialect d = MySqlDialect.create("mariadb", dev.rowqueue.spi.DatabaseProduct.of(c.getMetaData()),
                    Map.of());
            return d.classify(e);
        }
    }

    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void real_server_errors_are_classified(EmbeddedMariaDb.Driver driver) throws Exception {
        String t = name("err", driver);
        try (Connection c = connect(driver); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + t + " (id INT NOT NULL PRIMARY KEY, v BIGINT NOT NULL, KEY " + t
                    + "_v (v)) ENGINE=InnoDB");
            s.execute("INSERT INTO " + t + " VALUES (1, 0), (2, 0)");
        }
        assertEquals(SqlErrorKind.DUPLICATE_KEY, classify(failure(driver, "INSERT INTO " + t + " VALUES (1, 1)")));
        assertEquals(SqlErrorKind.UNDEFINED_TABLE, classify(failure(driver, "SELECT * FROM " + t + "_missing")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, classify(failure(driver, "CREATE TABLE " + t + " (x INT)")));
        assertEquals(SqlErrorKind.ALREADY_EXISTS, classify(failure(driver, "CREATE INDEX " + t + "_v ON " + t
                + " (v)")));
        assertEquals(SqlErrorKind.NUMERIC_OVERFLOW, classify(failure(driver, "UPDATE " + t + " SET v = "
                + Long.MAX_VALUE + " + id")));
        assertEquals(SqlErrorKind.REFUSED, classify(failure(driver, "SELEKT 1")));

        try (Connection a = connect(driver); Connection b = connect(driver)) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            try (Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                sa.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 1");
                sb.execute("SET SESSION innodb_lock_wait_timeout = 1");
                SQLException timeout = assertThrows(SQLException.class,
                        () -> sb.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 1"));
                assertEquals(SqlErrorKind.LOCK_TIMEOUT, classify(timeout), timeout.toString());
                b.rollback();
                sb.execute("SET SESSION innodb_lock_wait_timeout = 50");
                sb.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 2");
                CompletableFuture<SQLException> first = CompletableFuture.supplyAsync(() -> {
                    try {
                        sa.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 2");
                        return null;
                    } catch (SQLException e) {
                        return e;
                    }
                });
                TimeUnit.MILLISECONDS.sleep(300);
                SQLException second = null;
                try {
                    sb.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 1");
                } catch (SQLException e) {
                    second = e;
                }
                SQLException deadlock = second != null ? second : first.get(60, TimeUnit.SECONDS);
                assertTrue(deadlock != null, "one of two crossing transactions is chosen as the deadlock victim");
                assertEquals(1213, deadlock.getErrorCode(), deadlock.toString());
                assertEquals(SqlErrorKind.ROLLED_BACK, classify(deadlock));
                a.rollback();
                b.rollback();
                first.get(60, TimeUnit.SECONDS);
            }
        }

        try (Connection a = connect(driver); Connection b = connect(driver);
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            sb.execute("SET SESSION innodb_snapshot_isolation = ON");
            b.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            b.setAutoCommit(false);
            try (ResultSet rs = sb.executeQuery("SELECT v FROM " + t + " WHERE id = 1")) {
                rs.next();
            }
            sa.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 1");
            SQLException changed = assertThrows(SQLException.class,
                    () -> sb.executeUpdate("UPDATE " + t + " SET v = v + 1 WHERE id = 1"));
            assertEquals(1020, changed.getErrorCode(), changed.toString());
            assertEquals(SqlErrorKind.ROLLED_BACK, classify(changed));
            b.rollback();
        }

        try (Connection victim = connect(driver); Connection admin = connect(driver)) {
            long id;
            try (Statement s = victim.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                rs.next();
                id = rs.getLong(1);
            }
            try (Statement s = admin.createStatement()) {
                s.execute("KILL CONNECTION " + id);
            }
            SQLException killed = assertThrows(SQLException.class, () -> {
                try (Statement s = victim.createStatement()) {
                    s.executeQuery("SELECT 1").close();
                }
            });
            assertEquals(SqlErrorKind.CONNECTION, classify(killed), killed + " state " + killed.getSQLState()
                    + " code " + killed.getErrorCode());
        }
    }

    @Test
    void exhaustion_and_counter_overflow_are_refused_outside_strict_mode_too() throws SQLException {
        try (Connection c = connect(EmbeddedMariaDb.Driver.MARIADB)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION sql_mode = ''");
            }
            try (RowQueues rq = RowQueues.builder(new SingleConnection(c)).build()) {
                String ring = name("lax", EmbeddedMariaDb.Driver.MARIADB);
                RingQueue r = rq.ring(ring, 3);
                r.using(c).push("g", "a");
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE " + ring + "_head SET last_seq = " + (Long.MAX_VALUE - 1));
                }
                assertEquals(Long.MAX_VALUE, r.using(c).push("g", "b"));
                assertThrows(SequenceExhaustedException.class, () -> r.using(c).push("g", "c"));
                Counters counters = rq.counters(name("laxc", EmbeddedMariaDb.Driver.MARIADB));
                counters.using(c).set("k", Long.MAX_VALUE);
                assertThrows(CounterOverflowException.class, () -> counters.using(c).increment("k"));
                assertEquals(Long.MAX_VALUE, counters.using(c).get("k"));
                assertEquals(-5, counters.using(c).increment("neg", -5), "no clipping of negative values");
            }
        }
    }

    @Test
    void waiting_claims_on_the_last_insert_id_path_do_not_hang_on_a_lease_that_ends() throws Exception {
        try (RowQueues rq = RowQueues.builder(pools.get(EmbeddedMariaDb.Driver.MARIADB))
                .dialectOption(MySqlDialect.OPTION_CLAIM, "last-insert-id").build()) {
            WorkQueue q = rq.workQueue(name("liid", EmbeddedMariaDb.Driver.MARIADB),
                    dev.rowqueue.WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMillis(300)));
            q.enqueueAll(List.of("a", "b"), Enqueue.defaults().withPriority(1));
            q.enqueue("c");
            assertEquals(List.of("a", "b", "c"), q.claim(5).stream().map(Job::payload).toList());
            assertEquals(List.of(), q.claim(5), "leased");
            List<Job> again = q.claim(5, Duration.ofSeconds(10));
            assertEquals(List.of("a", "b", "c"), again.stream().map(Job::payload).toList(), "back after the lease");
            assertTrue(again.stream().allMatch(j -> j.failures() == 1));
        }
    }
}
