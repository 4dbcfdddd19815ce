package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;

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
        return List.of(ring, work, counters);
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
