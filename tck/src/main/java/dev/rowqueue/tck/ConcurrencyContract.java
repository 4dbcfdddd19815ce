package dev.rowqueue.tck;

import dev.rowqueue.CounterBlock;
import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Many threads producing and consuming at once: nothing lost, nothing delivered to two consumers, counters exact.
 * Each thread is a separate connection; the {@link TckTarget}'s data source must allow 17 at once.
 */
public abstract class ConcurrencyContract extends Contract {

    /** Producer and consumer threads of each contract. */
    protected static final int THREADS = 8;
    /** A bound on the whole contract, so a hang fails instead of stalling the build; not a performance limit. */
    private static final Duration LIVENESS = Duration.ofMinutes(3);

    @FunctionalInterface
    interface Worker {
        void run(int thread) throws Exception;
    }

    /** Starts the workers together and waits for all of them, failing on the first error. */
    static void together(int threads, Worker worker) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    worker.run(thread);
                    return null;
                }));
            }
            start.countDown();
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            for (Future<?> f : futures) {
                StuckStatements.await(f, Duration.ofNanos(deadline - System.nanoTime()),
                        threads + " threads of this rule");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static void assertRingHolds(RingQueue ring, String group, Map<Long, String> pushed, long newest,
                                        int expected) {
        List<RingEntry> entries = ring.oldestFirst(group);
        assertEquals(expected, entries.size(), "group " + group + " holds exactly its newest entries");
        for (int i = 0; i < entries.size(); i++) {
            RingEntry e = entries.get(i);
            assertEquals(newest - expected + 1 + i, e.seq(), "consecutive sequence numbers ending at " + newest);
            assertEquals(pushed.get(e.seq()), e.payload(), "entry " + e.seq() + " holds what was pushed with it");
        }
    }

    @Test
    void concurrent_producers_on_one_group_lose_no_push_and_share_no_sequence_number() throws Exception {
        int perThread = 100;
        RingQueue ring = rq().ring(newName(), THREADS * perThread);
        Map<Long, String> pushed = new ConcurrentHashMap<>();
        together(THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                String payload = "t" + t + "-" + i;
                long seq = ring.push("g", payload);
                assertNull(pushed.putIfAbsent(seq, payload), "sequence number " + seq + " was given twice");
            }
        });
        assertEquals(THREADS * perThread, pushed.size());
        assertRingHolds(ring, "g", pushed, THREADS * perThread, THREADS * perThread);
    }

    @Test
    void concurrent_producers_on_a_full_group_keep_exactly_the_newest_entries() throws Exception {
        int perThread = 100;
        RingQueue ring = rq().ring(newName(), 5);
        Map<Long, String> pushed = new ConcurrentHashMap<>();
        together(THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                String payload = "t" + t + "-" + i;
                if (i % 10 == 0) {
                    List<Long> seqs = ring.pushAll("g", List.of(payload + "a", payload + "b"));
                    assertNull(pushed.putIfAbsent(seqs.get(0), payload + "a"));
                    assertNull(pushed.putIfAbsent(seqs.get(1), payload + "b"));
                    assertEquals(seqs.get(0) + 1, seqs.get(1), "a batch gets consecutive numbers");
                } else {
                    assertNull(pushed.putIfAbsent(ring.push("g", payload), payload));
                }
            }
        });
        long total = THREADS * (perThread + perThread / 10);
        assertEquals(total, pushed.size());
        assertRingHolds(ring, "g", pushed, total, 5);
    }

    @Test
    void concurrent_producers_on_many_groups_keep_each_group_exact() throws Exception {
        int groups = 10;
        int perThread = 100;
        RingQueue ring = rq().ring(newName(), 20);
        Map<String, Map<Long, String>> pushed = new ConcurrentHashMap<>();
        together(THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                String group = "g" + ((t + i) % groups);
                String payload = "t" + t + "-" + i;
                long seq = ring.push(group, payload);
                assertNull(pushed.computeIfAbsent(group, g -> new ConcurrentHashMap<>()).putIfAbsent(seq, payload));
            }
        });
        for (int g = 0; g < groups; g++) {
            Map<Long, String> mine = pushed.get("g" + g);
            assertEquals(THREADS * perThread / groups, mine.size());
            assertRingHolds(ring, "g" + g, mine, mine.size(), 20);
        }
    }

    @Test
    void concurrent_consumers_never_receive_a_job_twice_and_lose_nothing() throws Exception {
        int producers = THREADS / 2;
        int perProducer = 200;
        int total = producers * perProducer;
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
        Set<Long> enqueued = ConcurrentHashMap.newKeySet();
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        AtomicInteger acked = new AtomicInteger();
        together(producers + THREADS, t -> {
            if (t < producers) {
                for (int i = 0; i < perProducer; ) {
                    if (i % 20 == 0) {
                        List<String> batch = new ArrayList<>();
                        for (int k = 0; k < 5; k++) {
                            batch.add("p" + t + "-" + (i + k));
                        }
                        enqueued.addAll(q.enqueueAll(batch, Enqueue.defaults().withPriority(i % 3)));
                        i += 5;
                    } else {
                        enqueued.add(q.enqueue("p" + t + "-" + i, Enqueue.defaults().withPriority(i % 3)));
                        i++;
                    }
                }
                return;
            }
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            while (acked.get() < total && System.nanoTime() < deadline) {
                List<Job> jobs = q.claim(1 + ThreadLocalRandom.current().nextInt(10), Duration.ofMillis(100));
                for (Job job : jobs) {
                    if (!delivered.add(job.id())) {
                        twice.add(job.id());
                    }
                    assertTrue(q.ack(job), "the holder's ack succeeds");
                    acked.incrementAndGet();
                }
            }
        });
        assertEquals(List.of(), List.copyOf(twice), "jobs delivered to two consumers");
        assertEquals(total, enqueued.size());
        assertEquals(enqueued, delivered, "every enqueued job was delivered");
        assertEquals(0, q.stats().total());
    }

    /**
     * An empty claim means no job was left for the claimer: none claimable, or only jobs other claims were taking at
     * that moment. So consumers that stop at their first empty claim leave nothing behind: a claim that lost every
     * candidate to racers looks again while claimable jobs remain, and no claim locks rows it then does not take.
     * Half the consumers share the target's instance (their claims may run together), half have an instance each,
     * as separate processes would (their claims race in the database).
     */
    @Test
    void concurrent_consumers_that_stop_at_their_first_empty_claim_leave_no_due_job_unclaimed() throws Exception {
        int total = 2000;
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add("j" + i);
        }
        Set<Long> enqueued = new HashSet<>();
        for (int i = 0; i < total; i += 100) {
            enqueued.addAll(q.enqueueAll(payloads.subList(i, i + 100), Enqueue.defaults()));
        }
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        List<RowQueues> own = new ArrayList<>();
        List<WorkQueue> queues = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            if (t % 2 == 0) {
                queues.add(q);
            } else {
                RowQueues instance = env().builder().build();
                own.add(instance);
                queues.add(instance.workQueue(q.name(), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1))));
            }
        }
        try {
            together(THREADS, t -> consumeUntilEmpty(queues.get(t), delivered, twice));
        } finally {
            for (RowQueues instance : own) {
                instance.close();
            }
        }
        assertEquals(List.of(), List.copyOf(twice), "jobs delivered to two consumers");
        QueueStats stats = q.stats();
        assertEquals(0, stats.ready(), "due jobs left unclaimed after every consumer saw an empty claim: " + stats);
        assertEquals(enqueued, delivered, "every job was delivered");
        assertEquals(0, stats.total());
    }

    /** Claims batches of 10 and acks them until the first empty claim. */
    private static void consumeUntilEmpty(WorkQueue q, Set<Long> delivered, ConcurrentLinkedQueue<Long> twice) {
        long deadline = System.nanoTime() + LIVENESS.toNanos();
        while (System.nanoTime() < deadline) {
            List<Job> jobs = q.claim(10);
            if (jobs.isEmpty()) {
                return; // the first empty claim: this consumer believes the queue is drained
            }
            for (Job job : jobs) {
                if (!delivered.add(job.id())) {
                    twice.add(job.id());
                }
                assertTrue(q.ack(job), "the holder's ack succeeds");
            }
        }
    }

    @Test
    void concurrent_consumers_looping_on_ack_and_claim_never_receive_a_job_twice_and_lose_nothing() throws Exception {
        consumeWithAckAndClaim(rq());
    }

    /**
     * With one claim of a queue at a time, the consumers' claims wait and run together: one statement with all their
     * acks and batches, its jobs handed out among them ({@code RowQueues.Builder#claimConcurrency}).
     */
    @Test
    void concurrent_consumers_whose_claims_run_together_never_receive_a_job_twice_and_lose_nothing()
            throws Exception {
        try (RowQueues gated = env().builder().claimConcurrency(1).build()) {
            consumeWithAckAndClaim(gated);
        }
    }

    private void consumeWithAckAndClaim(RowQueues rq) throws Exception {
        int total = 600;
        WorkQueue q = rq.workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add("j" + i);
        }
        Set<Long> enqueued = new HashSet<>(q.enqueueAll(payloads.subList(0, total / 2), Enqueue.defaults()));
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> lost = new ConcurrentLinkedQueue<>();
        AtomicInteger acked = new AtomicInteger();
        together(THREADS + 1, t -> {
            if (t == THREADS) { // a producer racing the consumers
                for (int i = total / 2; i < total; i += 10) {
                    enqueued.addAll(q.enqueueAll(payloads.subList(i, i + 10), Enqueue.defaults().withPriority(i % 3)));
                }
                return;
            }
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            List<Job> held = List.of();
            while (System.nanoTime() < deadline && (acked.get() < total || !held.isEmpty())) {
                Handoff h = q.ackAndClaim(held, 1 + ThreadLocalRandom.current().nextInt(10));
                h.lost().forEach(j -> lost.add(j.id()));
                acked.addAndGet(held.size() - h.lost().size());
                held = h.claimed();
                for (Job job : held) {
                    if (!delivered.add(job.id())) {
                        twice.add(job.id());
                    }
                }
                if (held.isEmpty() && acked.get() < total) {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }
        });
        assertEquals(List.of(), List.copyOf(twice), "jobs delivered to two consumers");
        assertEquals(List.of(), List.copyOf(lost), "acks of the holder refused");
        assertEquals(total, enqueued.size());
        assertEquals(enqueued, delivered, "every enqueued job was delivered");
        assertEquals(total, acked.get());
        assertEquals(0, q.stats().total());
    }

    @Test
    void concurrent_consumers_that_fail_and_crash_still_account_for_every_job() throws Exception {
        int total = 300;
        WorkQueue q = rq().workQueue(newName(),
                WorkQueueOptions.defaults().withMaxAttempts(3).withLeaseDuration(Duration.ofMillis(400)));
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add("j" + i);
        }
        Set<Long> ids = new HashSet<>(q.enqueueAll(payloads, Enqueue.defaults()));
        Map<Long, Integer> acks = new ConcurrentHashMap<>();
        together(THREADS, t -> {
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            while (System.nanoTime() < deadline) {
                dev.rowqueue.QueueStats stats = q.stats();
                if (stats.total() == stats.dead()) {
                    return;
                }
                for (Job job : q.claim(5, Duration.ofMillis(100))) {
                    int roll = ThreadLocalRandom.current().nextInt(100);
                    if (roll < 10) {
                        q.nack(job, Duration.ZERO, "failed");
                    } else if (roll < 15) {
                        continue; // crash: never ack; the lease runs out and the job comes back
                    } else if (q.ack(job)) {
                        acks.merge(job.id(), 1, Integer::sum);
                    }
                }
            }
            fail("consumers did not drain the queue within " + LIVENESS + ". " + StuckStatements.describe());
        });
        long dead = q.deadLetters(1000).size();
        assertTrue(acks.values().stream().allMatch(n -> n == 1), "no job was acked twice");
        assertEquals(total, acks.size() + dead, "every job was acked once or is dead");
        assertTrue(ids.containsAll(acks.keySet()));
    }

    @Test
    void concurrent_rotators_on_one_cursor_never_share_a_job() throws Exception {
        int total = 400;
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            payloads.add("m" + i);
        }
        q.enqueueAll(payloads, Enqueue.defaults());
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        AtomicInteger acked = new AtomicInteger();
        together(THREADS, t -> {
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            while (acked.get() < total && System.nanoTime() < deadline) {
                List<Job> batch = t % 2 == 0 ? q.rotate("sender", 10) : q.claim(7);
                for (Job job : batch) {
                    if (!delivered.add(job.id())) {
                        twice.add(job.id());
                    }
                    q.ack(job);
                    acked.incrementAndGet();
                }
            }
        });
        assertEquals(List.of(), List.copyOf(twice), "jobs handed to two consumers");
        assertEquals(total, delivered.size());
    }

    @Test
    void concurrent_increments_are_exact_and_every_value_is_given_out_once() throws Exception {
        int perThread = 200;
        Counters c = rq().counters(newName());
        Set<Long> values = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        together(THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                long v = c.increment("hot");
                if (!values.add(v)) {
                    twice.add(v);
                }
                c.increment("key-" + (i % 10), 2);
            }
        });
        assertEquals(List.of(), List.copyOf(twice), "values given to two callers");
        assertEquals(THREADS * perThread, c.get("hot"));
        for (long v = 1; v <= THREADS * perThread; v++) {
            assertTrue(values.contains(v), "value " + v + " was given out");
        }
        for (int k = 0; k < 10; k++) {
            assertEquals(THREADS * perThread / 10 * 2, c.get("key-" + k));
        }
    }

    @Test
    void concurrent_allocations_never_overlap() throws Exception {
        int perThread = 50;
        int size = 7;
        Counters c = rq().counters(newName());
        ConcurrentLinkedQueue<CounterBlock> blocks = new ConcurrentLinkedQueue<>();
        together(THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                blocks.add(c.allocate("ids", size));
            }
        });
        Set<Long> seen = new HashSet<>();
        for (CounterBlock b : blocks) {
            assertEquals(size, b.size());
            b.values().forEach(v -> assertTrue(seen.add(v), "value " + v + " in two blocks"));
        }
        assertEquals((long) THREADS * perThread * size, seen.size());
        assertEquals((long) THREADS * perThread * size, c.get("ids"));
    }
}
