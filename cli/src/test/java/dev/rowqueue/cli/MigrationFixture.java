package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.MissedSlots;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;

import dev.rowqueue.spi.CounterTable;
import dev.rowqueue.spi.RingTables;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queues of every kind in awkward states, made through the API on a source database, and the checks that a target
 * holds them after a migration and behaves as their continuation: rings keep numbering (also after a clear), work
 * queues keep ids, priorities, attempts, errors, dead letters, delays and rotation cursors (leased jobs arrive
 * ready), counters keep their values.
 */
final class MigrationFixture {

    final String ring;
    final String work;
    final String counters;
    /** A work queue that schedules enqueue into. */
    final String sched;

    private final Map<String, List<RingEntry>> entries = new LinkedHashMap<>();
    private final Map<String, Long> lastSeq = new LinkedHashMap<>();
    private long high;
    private long mid;
    private long poison;
    private long cursorNext;
    private final Set<Long> ready = new HashSet<>();
    private Map<String, Long> counterValues;

    private MigrationFixture(String prefix) {
        this.ring = prefix + "_ring";
        this.work = prefix + "_work";
        this.counters = prefix + "_cnt";
        this.sched = prefix + "_sch";
    }

    /** @return a fixture with fresh queue names (safe on a shared server) */
    static MigrationFixture fresh() {
        StringBuilder b = new StringBuilder("m");
        for (int i = 0; i < 7; i++) {
            b.append("abcdefghijklmnopqrstuvwxyz0123456789".charAt(ThreadLocalRandom.current().nextInt(36)));
        }
        return new MigrationFixture(b.toString());
    }

    /** @return the queue names */
    List<String> names() {
        return List.of(ring, work, counters, sched);
    }

    /** @return the schedule names (fresh like the queue names) */
    List<String> scheduleNames() {
        return List.of(sched + "_cron", sched + "_rate", sched + "_delay");
    }

    /**
     * Makes the queues on the source, and schedules that a scheduler fired for a while: a paused cron schedule with
     * templates, zone and missed-slot policy, a fixed-rate schedule with fired slots, a fixed-delay schedule that
     * waits for its job.
     *
     * @param src the source
     * @return this fixture
     * @throws InterruptedException if interrupted while the scheduler fires
     */
    MigrationFixture populate(Endpoint.Opened src) throws InterruptedException {
        populate(src.rq());
        src.rq().workQueue(sched).create();
        Schedules s = src.rq().schedules(); // the command line's handle: fires nothing
        s.define(scheduleNames().get(0), "0 9 * * MON-FRI", ScheduleOptions.forQueue(sched).withZone("Europe/Berlin")
                .withPayload("{\"report\":\"{slot}\"}").withKey("report-{slot_ms}").withMissed(MissedSlots.each(3)));
        s.pause(scheduleNames().get(0));
        s.resume(scheduleNames().get(0));
        s.pause(scheduleNames().get(0)); // revision 4
        try (RowQueues firing = RowQueues.builder(src.dataSource()).createSchema(false)
                .schedulerPollInterval(Duration.ofMillis(20)).build()) {
            Schedules f = firing.schedules().startScheduler();
            f.define(scheduleNames().get(1), Schedule.every(Duration.ofMillis(50)),
                    ScheduleOptions.forQueue(sched).withKey("rate").withMissed(MissedSlots.SKIP));
            f.define(scheduleNames().get(2), Schedule.fixedDelay(Duration.ofMillis(10)), ScheduleOptions.forQueue(sched));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (f.get(scheduleNames().get(2)).orElseThrow().revision() < 2
                    || firing.workQueue(sched).stats().ready() < 3) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the scheduler fired nothing in 30 s");
                }
                Thread.sleep(20);
            }
            f.pause(scheduleNames().get(1));
        }
        return this;
    }

    /**
     * Makes the queues on the source.
     *
     * @param rq the source
     * @return this fixture
     */
    MigrationFixture populate(RowQueues rq) {
        RingQueue r = rq.ring(ring, 3);
        r.pushAll("a", List.of("apples", "", "  trailing spaces  ", "żółć 🍌", "line\nbreak")); // wraps
        r.pushAll("A", List.of("upper", "case"));
        r.push("b", "single");
        r.pushAll("c", List.of("cleared", "later"));
        r.clear("c"); // a head row without entries: numbering must continue after the move
        for (String g : List.of("a", "A", "b", "c")) {
            entries.put(g, r.oldestFirst(g));
        }
        lastSeq.putAll(Map.of("a", 5L, "A", 2L, "b", 1L, "c", 2L));

        WorkQueue w = rq.workQueue(work, WorkQueueOptions.defaults().withMaxAttempts(3));
        long low = w.enqueue("low");
        high = w.enqueue("high", Enqueue.defaults().withPriority(9));
        mid = w.enqueue("mid", Enqueue.defaults().withPriority(5));
        w.enqueue("later", Enqueue.defaults().withDelay(Duration.ofHours(1)));
        List<Long> bulk = w.enqueueAll(List.of("bulk 5", "bulk 6", "bulk 7"), Enqueue.defaults());
        Job first = w.claim(1).get(0);
        assertEquals(high, first.id());
        assertTrue(w.nack(first, Duration.ZERO, "HTTP 500"));
        List<Job> leased = w.claim(2); // stay leased: they must arrive ready
        assertEquals(List.of(high, mid), leased.stream().map(Job::id).toList());
        poison = w.enqueue("poison", Enqueue.defaults().withPriority(8));
        WorkQueue strict = rq.workQueue(work, WorkQueueOptions.defaults().withMaxAttempts(1));
        Job p = strict.claim(1).get(0);
        assertEquals(poison, p.id());
        assertTrue(strict.nack(p, Duration.ZERO, "poison pill"));
        List<Job> rotated = w.rotate("sender", 2);
        assertEquals(List.of(low, bulk.get(0)), rotated.stream().map(Job::id).toList());
        rotated.forEach(w::release);
        cursorNext = bulk.get(1);
        ready.addAll(List.of(low, bulk.get(0), bulk.get(1), bulk.get(2)));
        assertEquals(new QueueStats(4, 1, 2, 1), w.stats());

        Counters c = rq.counters(counters);
        c.set("Bulldozer", 13);
        c.set("Red Horse Hill", -10);
        c.set("big", Long.MAX_VALUE - 1);
        c.increment("żółw");
        c.allocate("order_ids", 1000);
        counterValues = c.all();
        return this;
    }

    /**
     * Checks that the target holds the queues and continues them.
     *
     * @param rq the target
     */
    void assertMigrated(RowQueues rq) {
        RingQueue r = rq.ring(ring, 3);
        assertEquals(List.of("A", "a", "b").stream().sorted().toList(), r.groups().stream().sorted().toList());
        for (Map.Entry<String, List<RingEntry>> e : entries.entrySet()) {
            assertEquals(e.getValue(), r.oldestFirst(e.getKey()), "group " + e.getKey() + ": seq, payload, time");
        }
        for (Map.Entry<String, Long> e : lastSeq.entrySet()) {
            assertEquals(e.getValue() + 1, r.push(e.getKey(), "next"), "group " + e.getKey() + " keeps numbering");
        }

        WorkQueue w = rq.workQueue(work, WorkQueueOptions.defaults().withMaxAttempts(3));
        assertEquals(new QueueStats(6, 1, 0, 1), w.stats(), "the two leased jobs arrive ready");
        List<Job> dead = w.deadLetters(10);
        assertEquals(1, dead.size());
        assertEquals(List.of(poison, 1, "poison", "poison pill"), List.of(dead.get(0).id(), dead.get(0).failures(),
                dead.get(0).payload(), dead.get(0).lastError()));
        List<Job> rotated = w.rotate("sender", 1);
        assertEquals(List.of(cursorNext), rotated.stream().map(Job::id).toList(), "the rotation cursor moved along");
        rotated.forEach(w::release);
        List<Job> claimed = w.claim(100);
        assertEquals(List.of(high, mid), claimed.subList(0, 2).stream().map(Job::id).toList(), "priorities kept");
        assertEquals(1, claimed.get(0).failures(), "attempts kept");
        assertEquals("HTTP 500", claimed.get(0).lastError(), "last error kept");
        Set<Long> rest = new HashSet<>(claimed.subList(2, claimed.size()).stream().map(Job::id).toList());
        assertEquals(ready, rest);
        long next = w.enqueue("after the move");
        assertTrue(next > poison, "new id " + next + " above every copied id");

        Counters c = rq.counters(counters);
        assertEquals(counterValues, c.all());
        assertEquals(14, c.increment("Bulldozer"));
    }

    /**
     * Compares every table of the fixture on both sides row by row, read with plain JDBC (not the migration's code):
     * the target holds exactly the source's rows, except that a leased job arrives ready (no lease token, due at its
     * enqueue time).
     *
     * @param src the source
     * @param dst the target
     * @throws SQLException from a driver
     */
    void assertSameRows(Endpoint.Opened src, Endpoint.Opened dst) throws SQLException {
        String jobs = "id, payload, prio, state, due_ms, attempts, lease_token, enqueued_ms, last_error, job_key,"
                + " unique_key, key_seq";
        String mine = "queue_name = '" + sched + "'";
        Map<String, String> tables = new LinkedHashMap<>();
        tables.put("SELECT grp, slot, seq, payload, pushed_ms FROM " + RingTables.of(ring).entries(), "ring entries");
        tables.put("SELECT grp, last_seq FROM " + RingTables.of(ring).heads(), "ring heads");
        for (String w : List.of(work, sched)) {
            tables.put("SELECT " + jobs + " FROM " + WorkTables.of(w).jobs(), w + " jobs");
            tables.put("SELECT cursor_name, last_id FROM " + WorkTables.of(w).cursors(), w + " cursors");
        }
        tables.put("SELECT counter_key, counter_value FROM " + CounterTable.of(counters).table(), "counters");
        tables.put("SELECT schedule_name, spec, queue_name, payload, job_key, missed, paused, next_ms, last_job,"
                + " revision, created_ms FROM rowqueue_schedules WHERE " + mine, "schedules");
        tables.put("SELECT schedule_name, slot_ms, fired_ms FROM rowqueue_schedule_slots WHERE schedule_name IN"
                + " (SELECT schedule_name FROM rowqueue_schedules WHERE " + mine + ")", "schedule slots");
        Map<String, Integer> sizes = new LinkedHashMap<>();
        for (Map.Entry<String, String> t : tables.entrySet()) {
            List<List<String>> expected = rows(src, t.getKey());
            if (t.getValue().endsWith(" jobs")) {
                expected = expected.stream().map(MigrationFixture::unleased).toList();
            }
            assertEquals(sorted(expected), sorted(rows(dst, t.getKey())), t.getValue() + ", row by row");
            sizes.put(t.getValue(), expected.size());
        }
        assertTrue(sizes.get("schedules") == 3 && sizes.get("schedule slots") >= 2 && sizes.get(work + " jobs") == 8,
                "the fixture holds what it should: " + sizes);
    }

    private static List<String> unleased(List<String> job) {
        List<String> copy = new ArrayList<>(job);
        if (copy.get(6) != null) {
            copy.set(6, null);
            copy.set(4, copy.get(7));
        }
        return copy;
    }

    private static List<String> sorted(List<List<String>> rows) {
        return rows.stream().map(String::valueOf).sorted().toList();
    }

    private static List<List<String>> rows(Endpoint.Opened side, String sql) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (Connection c = side.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /**
     * The migrate arguments for this fixture's queues.
     *
     * @param from the source
     * @param to   the target
     * @param more further arguments
     * @return the arguments
     */
    String[] migrateArgs(Endpoint from, Endpoint to, String... more) {
        List<String> args = new ArrayList<>(List.of("migrate", "--from", from.url(), "--to", to.url()));
        if (from.user() != null) {
            args.addAll(List.of("--from-user", from.user()));
        }
        if (to.user() != null) {
            args.addAll(List.of("--to-user", to.user()));
        }
        if (from.dialect() != null) {
            args.addAll(List.of("--from-dialect", from.dialect()));
        }
        if (to.dialect() != null) {
            args.addAll(List.of("--to-dialect", to.dialect()));
        }
        for (String n : names()) {
            args.addAll(List.of("--queue", n));
        }
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    /**
     * The environment that gives migrate both passwords.
     *
     * @param from the source
     * @param to   the target
     * @return a non-interactive environment
     */
    static CliEnv passwords(Endpoint from, Endpoint to) {
        Map<String, String> env = new LinkedHashMap<>();
        if (from.password() != null) {
            env.put("ROWQUEUE_FROM_PASSWORD", from.password());
        }
        if (to.password() != null) {
            env.put("ROWQUEUE_TO_PASSWORD", to.password());
        }
        return CliEnv.of(env, false, null);
    }
}
