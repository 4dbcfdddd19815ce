package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProviders;
import dev.rowqueue.spi.Schema;
import dev.rowqueue.spi.WorkTables;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Keyed jobs: keys carried by jobs, unique keys (one live job per unique key, whatever the race), per-key limits on
 * leased jobs enforced by the database ({@code maxLeasedPerKey}), fair claims across keys, and the upgrade of a work
 * queue created before keys existed. Tagged {@code keyed}, so that {@code -Dgroups=keyed} runs these alone on a target.
 */
@Tag("keyed")
public abstract class KeyedJobContract extends Contract {

    /** Long enough that a test never sees a lease end by accident. */
    static final Duration LONG = Duration.ofHours(1);
    /** A bound on the concurrent contracts, so a hang fails instead of stalling the build; not a performance limit. */
    private static final Duration LIVENESS = Duration.ofMinutes(3);

    private WorkQueue queue(WorkQueueOptions options) {
        return rq().workQueue(newName(), options).create();
    }

    private static WorkQueueOptions leasedLong() {
        return WorkQueueOptions.defaults().withLeaseDuration(LONG);
    }

    private static List<String> payloads(List<Job> jobs) {
        return jobs.stream().map(Job::payload).toList();
    }

    // ---------------------------------------------------------------- keys

    @Test
    void a_claimed_job_carries_its_key_and_keys_are_compared_exactly() {
        WorkQueue q = queue(leasedLong());
        q.enqueue("a", Enqueue.defaults().withKey("tenant-42"));
        q.enqueue("b");
        q.enqueueAll(List.of("c", "d"), Enqueue.defaults().withKey("Tenant-42 "));
        q.enqueue("e", Enqueue.defaults().withKey("t\u00e9nant-\uD83D\uDE00"));
        List<Job> jobs = q.claim(10);
        assertEquals(List.of("a", "b", "c", "d", "e"), payloads(jobs));
        List<String> keys = new ArrayList<>();
        jobs.forEach(j -> keys.add(j.key()));
        assertEquals(java.util.Arrays.asList("tenant-42", null, "Tenant-42 ", "Tenant-42 ", "t\u00e9nant-\uD83D\uDE00"),
                keys);
        Map<String, QueueStats> byKey = q.statsByKey(10);
        assertEquals(3, byKey.size(), "jobs without a key are not counted by key: " + byKey);
        assertEquals(new QueueStats(0, 0, 2, 0), byKey.get("Tenant-42 "));
        assertEquals(new QueueStats(0, 0, 1, 0), byKey.get("tenant-42"));
        assertEquals("Tenant-42 ", byKey.keySet().iterator().next(), "the key with the most jobs first");
    }

    @Test
    void bad_keys_are_refused_before_any_sql_runs() {
        WorkQueue q = queue(leasedLong());
        long before = env().counting().executions();
        assertThrows(IllegalArgumentException.class, () -> Enqueue.defaults().withKey(""));
        assertNull(Enqueue.defaults().withKey("k").withKey(null).key(), "withKey(null) means no key");
        assertThrows(IllegalArgumentException.class, () -> Enqueue.defaults().withKey("x".repeat(Enqueue.MAX_KEY_LENGTH + 1)));
        assertThrows(IllegalArgumentException.class, () -> Enqueue.defaults().withKey("nul\u0000"));
        assertThrows(IllegalArgumentException.class, () -> Enqueue.defaults().withUniqueKey("lone \uD800 surrogate"));
        assertThrows(IllegalStateException.class, () -> Enqueue.defaults().withPriority(1).unique());
        assertThrows(IllegalArgumentException.class, () -> WorkQueueOptions.defaults().withMaxLeasedPerKey(-1));
        assertThrows(IllegalArgumentException.class,
                () -> q.enqueueAll(List.of("a", "b"), Enqueue.defaults().withKey("k").unique()), "a unique key names one job");
        WorkQueue limited = rq().workQueue(q.name(), leasedLong().withMaxLeasedPerKey(1));
        assertThrows(IllegalStateException.class, () -> limited.rotate("c", 1));
        assertThrows(IllegalArgumentException.class, () -> q.rotate(WorkTables.CLAIM_GATE, 1),
                "the gate's cursor name is reserved");
        assertEquals(before, env().counting().executions(), "no statement ran");
        assertEquals(0, q.stats().total());
        long id = q.enqueue("longest", Enqueue.defaults().withKey("k".repeat(Enqueue.MAX_KEY_LENGTH)).unique());
        Job job = q.claim(1).get(0);
        assertEquals(id, job.id());
        assertEquals("k".repeat(Enqueue.MAX_KEY_LENGTH), job.key(), "a key of the longest length is kept whole");
    }

    // ---------------------------------------------------------------- unique keys

    @Test
    void an_enqueue_with_the_unique_key_of_a_ready_scheduled_or_leased_job_returns_its_id_and_writes_nothing() {
        WorkQueue q = queue(leasedLong());
        long ready = q.enqueue("first", Enqueue.defaults().withUniqueKey("ready"));
        assertEquals(ready, q.enqueue("second", Enqueue.defaults().withUniqueKey("ready")));
        assertEquals(ready, q.enqueueAll(List.of("third"), Enqueue.defaults().withKey("other").withUniqueKey("ready")).get(0));
        long scheduled = q.enqueue("later", Enqueue.defaults().withDelay(LONG).withUniqueKey("scheduled"));
        assertEquals(scheduled, q.enqueue("now", Enqueue.defaults().withUniqueKey("scheduled")));
        assertEquals(new QueueStats(1, 1, 0, 0), q.stats(), "nothing was written by the duplicates");
        long leased = q.enqueue("running", Enqueue.defaults().withKey("leased").unique());
        Job job = q.claim(5).stream().filter(j -> j.id() == leased).findFirst().orElseThrow();
        assertEquals("running", job.payload());
        assertEquals(leased, q.enqueue("again", Enqueue.defaults().withKey("leased").unique()), "a leased job holds its key");
        assertEquals(3, q.stats().total());
        assertEquals(List.of(), q.claim(5), "the duplicate enqueues made no job");
    }

    @Test
    void unique_keys_that_differ_in_case_or_trailing_blanks_are_different_keys() {
        WorkQueue q = queue(leasedLong());
        Set<Long> ids = new HashSet<>();
        for (String k : List.of("inv", "INV", "inv ", " inv", "inv  ")) {
            ids.add(q.enqueue(k, Enqueue.defaults().withUniqueKey(k)));
        }
        assertEquals(5, ids.size());
        assertEquals(5, q.stats().ready());
    }

    @Test
    void an_acked_or_dead_job_frees_its_unique_key_and_a_revived_one_does_not_take_it_back() {
        WorkQueue q = queue(leasedLong().withMaxAttempts(1));
        long first = q.enqueue("one", Enqueue.defaults().withUniqueKey("k"));
        assertTrue(q.ack(q.claim(1).get(0)));
        long second = q.enqueue("two", Enqueue.defaults().withUniqueKey("k"));
        assertNotEquals(first, second, "an acked job frees its unique key");
        assertTrue(q.nack(q.claim(1).get(0), Duration.ZERO, "failed"));
        assertEquals(1, q.stats().dead());
        long third = q.enqueue("three", Enqueue.defaults().withUniqueKey("k"));
        assertNotEquals(second, third, "a dead job frees its unique key");
        assertTrue(q.revive(second));
        assertEquals(third, q.enqueue("four", Enqueue.defaults().withUniqueKey("k")), "the revived job no longer holds the key");
        assertEquals(2, q.stats().ready());
    }

    /**
     * 16 producers, half on the shared instance and half on instances of their own (separate nodes), start together
     * and enqueue the same unique key: every one gets the id of the one job that was written. Repeated with fresh keys,
     * and once more after the job was acked.
     */
    @Test
    void sixteen_producers_racing_on_one_unique_key_get_one_job() throws Exception {
        int producers = 16;
        WorkQueue q = queue(leasedLong());
        List<RowQueues> own = new ArrayList<>();
        List<WorkQueue> handles = new ArrayList<>();
        for (int t = 0; t < producers; t++) {
            if (t % 2 == 0) {
                handles.add(q);
            } else {
                RowQueues instance = env().builder().build();
                own.add(instance);
                handles.add(instance.workQueue(q.name(), leasedLong()));
            }
        }
        try {
            int rounds = 4;
            for (int round = 0; round <= rounds; round++) {
                String key = round == rounds ? "k0" : "k" + round;
                Map<Integer, Long> ids = new ConcurrentHashMap<>();
                int r = round;
                ConcurrencyContract.together(producers, t -> ids.put(t,
                        handles.get(t).enqueue("r" + r + "-p" + t, Enqueue.defaults().withKey(key).unique())));
                assertEquals(1, new HashSet<>(ids.values()).size(), "round " + round + ": one job for " + key
                        + ", got ids " + ids);
                if (round == rounds - 1) {
                    assertEquals(rounds, q.stats().total(), "one job per unique key");
                    for (Job job : q.claim(rounds)) {
                        assertTrue(q.ack(job));
                    }
                }
            }
            assertEquals(1, q.stats().total(), "k0 was free again after its job was acked: one new job");
        } finally {
            for (RowQueues instance : own) {
                instance.close();
            }
        }
    }

    // ---------------------------------------------------------------- per-key limits

    @Test
    void with_max_leased_per_key_1_a_key_has_one_leased_job_and_the_next_waits_for_its_ack() {
        WorkQueue q = queue(leasedLong().withMaxLeasedPerKey(1));
        q.enqueueAll(List.of("a1", "a2", "a3"), Enqueue.defaults().withKey("a"));
        q.enqueue("b1", Enqueue.defaults().withKey("b").withPriority(-1));
        q.enqueue("free1");
        q.enqueue("free2");
        List<Job> first = q.claim(10);
        assertEquals(List.of("a1", "free1", "free2", "b1"), payloads(first), "one job per key, keyless jobs freely");
        assertEquals(List.of(), q.claim(10), "every key is at its limit");
        assertTrue(q.ack(first.get(0)));
        assertEquals(List.of("a2"), payloads(q.claim(10)));
        assertEquals(List.of(), q.claim(10));
        assertTrue(q.release(first.get(3)));
        assertEquals(List.of("b1"), payloads(q.claim(10)), "a released job frees its key's slot");
    }

    @Test
    void a_keys_jobs_are_handed_out_in_enqueue_order_whatever_their_priority_and_a_job_not_yet_due_waits()
            throws Exception {
        WorkQueue q = queue(leasedLong().withMaxLeasedPerKey(1));
        q.enqueue("k-first", Enqueue.defaults().withKey("k").withDelay(Duration.ofMillis(300)));
        q.enqueue("k-second", Enqueue.defaults().withKey("k").withPriority(9));
        q.enqueue("other", Enqueue.defaults().withKey("o").withPriority(5));
        List<Job> jobs = q.claim(10);
        assertEquals(List.of("k-second", "other"), payloads(jobs),
                "a job not yet due does not hold its key back; priority orders keys");
        TimeUnit.MILLISECONDS.sleep(400);
        q.enqueue("k-third", Enqueue.defaults().withKey("k").withPriority(100));
        assertEquals(List.of(), q.claim(10), "k's first job is due now, but k has its leased job");
        assertTrue(q.ack(jobs.get(0)));
        List<Job> next = q.claim(10);
        assertEquals(List.of("k-first"), payloads(next), "k's next job in enqueue order, not by priority");
        assertTrue(q.ack(next.get(0)));
        assertEquals(List.of("k-third"), payloads(q.claim(10)));
    }

    @Test
    void with_max_leased_per_key_n_a_batch_takes_n_jobs_of_a_key_at_most() {
        WorkQueue q = queue(leasedLong().withMaxLeasedPerKey(3));
        q.enqueueAll(List.of("a1", "a2", "a3", "a4", "a5"), Enqueue.defaults().withKey("a"));
        q.enqueueAll(List.of("b1", "b2"), Enqueue.defaults().withKey("b"));
        List<Job> jobs = q.claim(10);
        assertEquals(Set.of("a1", "a2", "a3", "b1", "b2"), Set.copyOf(payloads(jobs)));
        assertEquals(List.of(), q.claim(10));
        assertTrue(q.ack(jobs.stream().filter(j -> j.payload().equals("a2")).findFirst().orElseThrow()));
        assertEquals(List.of("a4"), payloads(q.claim(10)));
        assertEquals(new QueueStats(1, 0, 5, 0), q.stats());
    }

    @Test
    void an_expired_lease_frees_the_keys_slot_and_the_job_comes_back_first() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(lease).withMaxLeasedPerKey(1));
        q.enqueueAll(List.of("k1", "k2"), Enqueue.defaults().withKey("k"));
        long sent = System.nanoTime();
        Job first = q.claim(5).get(0);
        assertEquals("k1", first.payload());
        List<Job> during = q.claim(5);
        if (System.nanoTime() - sent < lease.toNanos()) {
            assertEquals(List.of(), during, "the key's slot is held while the lease lasts");
        } // else a machine slow enough to outlast the lease: the claim may already be the one after the lease
        // no fixed sleep: the first claim that finds anything after the lease must find the expired job
        List<Job> again = during;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (again.isEmpty() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
            again = q.claim(5);
        }
        assertEquals(List.of("k1"), payloads(again), "the job whose lease ended, not the key's next one");
        assertEquals(1, again.get(0).failures());
    }

    @Test
    void ack_and_claim_under_a_per_key_limit_acks_then_claims_the_keys_next_job() {
        WorkQueue q = queue(leasedLong().withMaxLeasedPerKey(1));
        q.enqueueAll(List.of("a1", "a2"), Enqueue.defaults().withKey("a"));
        List<Job> held = q.claim(5);
        assertEquals(List.of("a1"), payloads(held));
        Handoff h = q.ackAndClaim(held, 5);
        assertEquals(List.of(), h.lost());
        assertEquals(List.of("a2"), payloads(h.claimed()));
        assertEquals(new QueueStats(0, 0, 1, 0), q.stats());
    }

    /** One lease of a key's job, as a consumer saw it: from the claim's return to the ack's call. */
    private record Held(String key, int index, long jobId, long from, long to, int consumer) {
    }

    /**
     * With {@code maxLeasedPerKey(1)}, 8 consumers (half on the shared instance, half on instances of their own:
     * separate nodes) over 50 keys of 20 jobs each: a recorder of lease intervals (from each claim's return to the
     * call of its ack) never finds two jobs of one key held at once, and each key's jobs are taken in enqueue order.
     * The jobs are enqueued with random priorities, key after key in a shuffled order, so claim order across keys is
     * mixed; consumers hold each job a moment before acking, and half of them ack and claim in one call.
     */
    @Test
    void eight_consumers_over_fifty_keys_never_hold_two_jobs_of_one_key_and_take_each_keys_jobs_in_order()
            throws Exception {
        int consumers = 8;
        int keys = 50;
        int perKey = 20;
        int total = keys * perKey;
        WorkQueueOptions options = leasedLong().withMaxLeasedPerKey(1);
        WorkQueue q = queue(options);
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            order.add(k);
        }
        Map<Long, String> payloadOf = new HashMap<>();
        for (int i = 0; i < perKey; i += 5) {
            Collections.shuffle(order);
            for (int k : order) {
                List<String> batch = new ArrayList<>();
                for (int j = i; j < i + 5; j++) {
                    batch.add("k" + k + "#" + j);
                }
                List<Long> ids = q.enqueueAll(batch, Enqueue.defaults().withKey("k" + k)
                        .withPriority(ThreadLocalRandom.current().nextInt(4)));
                for (int j = 0; j < ids.size(); j++) {
                    payloadOf.put(ids.get(j), batch.get(j));
                }
            }
        }
        ConcurrentLinkedQueue<Held> record = new ConcurrentLinkedQueue<>();
        Map<String, Long> holding = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
        Set<Long> delivered = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Long> twice = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        List<RowQueues> own = new ArrayList<>();
        List<WorkQueue> handles = consumersOf(q, options, consumers, own);
        try {
            ConcurrencyContract.together(consumers, t -> {
                WorkQueue mine = handles.get(t);
                boolean handoff = t % 4 >= 2;
                long deadline = System.nanoTime() + LIVENESS.toNanos();
                List<Job> held = List.of();
                while (System.nanoTime() < deadline && (done.get() < total || !held.isEmpty())) {
                    int batch = 1 + ThreadLocalRandom.current().nextInt(4);
                    List<Job> jobs;
                    if (handoff) {
                        Handoff h = mine.ackAndClaim(held, batch);
                        assertEquals(List.of(), h.lost(), "acks of the holder refused");
                        done.addAndGet(held.size());
                        jobs = h.claimed();
                    } else {
                        jobs = mine.claim(batch);
                    }
                    long claimed = System.nanoTime();
                    for (Job job : jobs) {
                        if (!delivered.add(job.id())) {
                            twice.add(job.id());
                        }
                        Long other = holding.putIfAbsent(job.key(), job.id());
                        if (other != null) {
                            overlaps.add(job.key() + ": job " + job.id() + " claimed while job " + other
                                    + " was held");
                        }
                    }
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200 + ThreadLocalRandom.current()
                            .nextInt(800)));
                    long released = System.nanoTime();
                    for (Job job : jobs) {
                        holding.remove(job.key(), job.id());
                        String payload = job.payload();
                        record.add(new Held(job.key(), Integer.parseInt(payload.substring(payload.indexOf('#') + 1)),
                                job.id(), claimed, released, t));
                    }
                    if (handoff) {
                        held = jobs;
                    } else {
                        for (Job job : jobs) {
                            assertTrue(mine.ack(job), "the holder's ack succeeds");
                        }
                        done.addAndGet(jobs.size());
                    }
                    if (jobs.isEmpty()) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    }
                }
            });
        } finally {
            for (RowQueues instance : own) {
                instance.close();
            }
        }
        assertEquals(List.of(), List.copyOf(twice), "jobs delivered twice");
        assertEquals(List.of(), overlaps.stream().limit(20).toList(), overlaps.size() + " times two jobs of one key"
                + " were held at once");
        assertEquals(payloadOf.keySet(), delivered, "every job was delivered");
        Map<String, List<Held>> byKey = new HashMap<>();
        record.forEach(h -> byKey.computeIfAbsent(h.key(), k -> new ArrayList<>()).add(h));
        assertEquals(keys, byKey.size());
        for (Map.Entry<String, List<Held>> e : byKey.entrySet()) {
            List<Held> leases = e.getValue();
            leases.sort(Comparator.comparingLong(Held::from));
            for (int i = 0; i < leases.size(); i++) {
                assertEquals(i, leases.get(i).index(), "key " + e.getKey() + " took its jobs in enqueue order: "
                        + leases);
                if (i > 0) {
                    assertTrue(leases.get(i - 1).to() <= leases.get(i).from(), "key " + e.getKey()
                            + ": leases overlap: " + leases.get(i - 1) + " and " + leases.get(i));
                }
            }
        }
        assertEquals(0, q.stats().total(), "every job acked");
    }

    /**
     * The race a per-key limit must survive: jobs of a key becoming due while claims run. 8 consumers (half on
     * instances of their own) over 20 keys nack a third of their jobs with a retry delay of 0 to 3 ms, so a key's
     * first job keeps turning due again between the snapshots of concurrent claims; a claim that read its counts
     * before another claim's lease committed would take a second job of the key. A recorder of hold intervals (from
     * the claim's return to the call of the ack or nack) never finds two jobs of one key held at once.
     */
    @Test
    void with_retries_turning_jobs_due_between_claims_no_key_ever_has_two_jobs_held() throws Exception {
        int consumers = 8;
        int keys = 20;
        int perKey = 20;
        int total = keys * perKey;
        WorkQueueOptions options = leasedLong().withMaxLeasedPerKey(1).withMaxAttempts(1000);
        WorkQueue q = queue(options);
        for (int k = 0; k < keys; k++) {
            List<String> batch = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                batch.add("k" + k + "#" + i);
            }
            q.enqueueAll(batch, Enqueue.defaults().withKey("k" + k));
        }
        Map<String, Long> holding = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
        AtomicInteger acked = new AtomicInteger();
        List<RowQueues> own = new ArrayList<>();
        List<WorkQueue> handles = consumersOf(q, options, consumers, own);
        try {
            ConcurrencyContract.together(consumers, t -> {
                WorkQueue mine = handles.get(t);
                long deadline = System.nanoTime() + LIVENESS.toNanos();
                while (acked.get() < total && System.nanoTime() < deadline) {
                    List<Job> jobs = mine.claim(1 + ThreadLocalRandom.current().nextInt(3));
                    for (Job job : jobs) {
                        Long other = holding.putIfAbsent(job.key(), job.id());
                        if (other != null) {
                            overlaps.add(job.key() + ": job " + job.id() + " claimed while job " + other
                                    + " was held");
                        }
                    }
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100 + ThreadLocalRandom.current()
                            .nextInt(400)));
                    for (Job job : jobs) {
                        holding.remove(job.key(), job.id());
                        if (ThreadLocalRandom.current().nextBoolean()) {
                            assertTrue(mine.nack(job, Duration.ofMillis(ThreadLocalRandom.current().nextInt(4))));
                        } else {
                            assertTrue(mine.ack(job));
                            acked.incrementAndGet();
                        }
                    }
                    if (jobs.isEmpty()) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }
            });
        } finally {
            for (RowQueues instance : own) {
                instance.close();
            }
        }
        assertEquals(List.of(), overlaps.stream().limit(20).toList(), overlaps.size() + " times two jobs of one key"
                + " were held at once");
        assertEquals(total, acked.get());
        assertEquals(0, q.stats().total());
    }

    /**
     * A worker of 4 threads (and prefetch) on a queue with {@code maxLeasedPerKey(1)} never runs two jobs of one key
     * at once, and runs each key's jobs in enqueue order.
     */
    @Test
    void a_worker_under_max_leased_per_key_1_runs_one_job_of_a_key_at_a_time_in_order() throws Exception {
        WorkQueue q = queue(leasedLong().withMaxLeasedPerKey(1));
        int keys = 6;
        int perKey = 15;
        for (int k = 0; k < keys; k++) {
            List<String> batch = new ArrayList<>();
            for (int i = 0; i < perKey; i++) {
                batch.add(k + "#" + i);
            }
            q.enqueueAll(batch, Enqueue.defaults().withKey("k" + k));
        }
        Set<String> running = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
        Map<String, List<Integer>> order = new ConcurrentHashMap<>();
        AtomicInteger ran = new AtomicInteger();
        try (dev.rowqueue.Worker worker = q.worker(job -> {
            if (!running.add(job.key())) {
                overlaps.add(job.key() + " ran twice at once at job " + job.payload());
            }
            order.computeIfAbsent(job.key(), k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                    .add(Integer.parseInt(job.payload().substring(job.payload().indexOf('#') + 1)));
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300));
            running.remove(job.key());
            ran.incrementAndGet();
        }, dev.rowqueue.WorkerOptions.defaults().withThreads(4).withPrefetch(4)).start()) {
            long deadline = System.nanoTime() + LIVENESS.toNanos();
            while (q.stats().total() > 0 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        assertEquals(List.of(), List.copyOf(overlaps));
        assertEquals(keys * perKey, ran.get());
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            expected.add(i);
        }
        order.forEach((k, l) -> assertEquals(expected, l, "key " + k + " ran in enqueue order"));
        assertEquals(0, q.stats().total());
    }

    // ---------------------------------------------------------------- fair claims

    /**
     * One key holds 10,000 ready jobs, enqueued first; 9 keys hold 10 each. Fair claims of 10, each batch acked, take
     * all 90 small-key jobs within the first 200 jobs claimed. A plain claim would take the big key's jobs first.
     */
    @Test
    void fair_claims_take_all_small_keys_jobs_within_the_first_200_while_one_key_holds_10000() {
        WorkQueue q = queue(leasedLong().withFairClaims(true));
        List<String> chunk = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            chunk.add("big");
        }
        for (int i = 0; i < 10; i++) {
            q.enqueueAll(chunk, Enqueue.defaults().withKey("big"));
        }
        for (int k = 0; k < 9; k++) {
            List<String> small = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                small.add("small" + k + "#" + i);
            }
            q.enqueueAll(small, Enqueue.defaults().withKey("small" + k));
        }
        WorkQueue plain = rq().workQueue(q.name(), leasedLong());
        assertEquals("big", plain.claim(1).get(0).payload(), "plain claims follow id order here");
        List<Job> first = new ArrayList<>();
        while (first.size() < 200) {
            List<Job> jobs = q.claim(10);
            assertFalse(jobs.isEmpty());
            first.addAll(jobs);
            jobs.forEach(q::ack);
        }
        long small = first.stream().filter(j -> j.key().startsWith("small")).count();
        assertEquals(90, small, "small-key jobs among the first 200 claimed");
        Map<String, List<Integer>> taken = new HashMap<>();
        for (Job j : first) {
            if (j.key().startsWith("small")) {
                taken.computeIfAbsent(j.key(), k -> new ArrayList<>())
                        .add(Integer.parseInt(j.payload().substring(j.payload().indexOf('#') + 1)));
            }
        }
        taken.values().forEach(l -> assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), l,
                "a key's jobs in enqueue order"));
    }

    @Test
    void fair_claims_of_one_job_visit_every_key_before_a_keys_second_job_and_a_new_key_joins_the_current_round() {
        WorkQueue q = queue(leasedLong().withFairClaims(true));
        for (String k : List.of("a", "b", "c")) {
            q.enqueueAll(List.of(k + "1", k + "2", k + "3"), Enqueue.defaults().withKey(k));
        }
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Job job = q.claim(1).get(0);
            taken.add(job.payload());
            assertTrue(q.ack(job));
        }
        assertEquals(List.of("a1", "b1", "c1", "a2"), taken);
        q.enqueueAll(List.of("d1", "d2"), Enqueue.defaults().withKey("d"));
        List<String> next = payloads(q.claim(4));
        assertEquals(List.of("b2", "c2", "d1", "a3"), next, "d joins round 2, not round 1");
    }

    @Test
    void fair_claims_under_a_per_key_limit_keep_the_limit() {
        WorkQueue q = queue(leasedLong().withFairClaims(true).withMaxLeasedPerKey(1));
        q.enqueueAll(List.of("a1", "a2", "a3"), Enqueue.defaults().withKey("a"));
        q.enqueueAll(List.of("b1", "b2"), Enqueue.defaults().withKey("b"));
        List<Job> jobs = q.claim(10);
        assertEquals(List.of("a1", "b1"), payloads(jobs));
        assertEquals(List.of(), q.claim(10));
        assertTrue(q.ack(jobs.get(1)));
        assertEquals(List.of("b2"), payloads(q.claim(10)));
    }

    // ---------------------------------------------------------------- upgrade

    /**
     * A work queue created with schema version 1 (no key columns), with jobs in it, is upgraded when a rowqueue of
     * this version first opens it: the columns and indexes are added, the catalog records version 2, the old jobs
     * are claimable (without keys), keyed and unique jobs work, and a writer that does not know the columns (an older
     * rowqueue on another node) can still insert.
     */
    @Test
    void a_work_queue_of_schema_version_1_is_upgraded_on_first_use() throws Exception {
        String name = newName();
        WorkTables t = WorkTables.of(name);
        rq().workQueue(newName()); // the catalog exists
        Dialect dialect = env().jdbc(c -> DialectProviders.named(env().database().dialect())
                .create(DatabaseProduct.of(c.getMetaData()), env().target().dialectOptions(), c));
        for (String ddl : dialect.ddl().work(t, 1)) {
            env().execute(ddl);
        }
        long now = System.currentTimeMillis();
        env().jdbc(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Dialect.CATALOG_TABLE
                    + " (queue_name, kind, capacity, strategy, schema_version, created_ms) VALUES (?, 'WORK', 0, NULL,"
                    + " 1, ?)")) {
                ps.setString(1, name);
                ps.setLong(2, now);
                ps.executeUpdate();
            }
            return null;
        });
        insertAsVersion1(t, "old-1", now - 1000);
        insertAsVersion1(t, "old-2", now - 1000);
        try (RowQueues fresh = env().builder().build()) {
            WorkQueue q = fresh.workQueue(name, leasedLong().withMaxLeasedPerKey(1));
            assertEquals(Integer.valueOf(Schema.VERSION), env().<Integer>jdbc(c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT schema_version FROM " + Dialect.CATALOG_TABLE
                        + " WHERE queue_name = ?")) {
                    ps.setString(1, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getInt(1);
                    }
                }
            }), "the catalog records schema version " + Schema.VERSION);
            long unique = q.enqueue("new", Enqueue.defaults().withKey("k").unique());
            assertEquals(unique, q.enqueue("dup", Enqueue.defaults().withKey("k").unique()));
            q.enqueue("k-next", Enqueue.defaults().withKey("k"));
            insertAsVersion1(t, "old-3", now);
            List<Job> jobs = q.claim(10);
            assertEquals(Set.of("old-1", "old-2", "old-3", "new"), Set.copyOf(payloads(jobs)));
            for (Job job : jobs) {
                assertEquals(job.payload().equals("new") ? "k" : null, job.key());
            }
            assertEquals(List.of(), q.claim(10), "k has its leased job");
            assertEquals(5, q.stats().total());
        }
    }

    /**
     * Handles of a queue for consumers: even ones share the kit's instance, odd ones get an instance of their own (a
     * separate node), added to {@code own} for the caller to close.
     */
    private List<WorkQueue> consumersOf(WorkQueue q, WorkQueueOptions options, int consumers, List<RowQueues> own) {
        List<WorkQueue> handles = new ArrayList<>();
        for (int t = 0; t < consumers; t++) {
            if (t % 2 == 0) {
                handles.add(q);
            } else {
                RowQueues instance = env().builder().build();
                own.add(instance);
                handles.add(instance.workQueue(q.name(), options));
            }
        }
        return handles;
    }

    private void insertAsVersion1(WorkTables t, String payload, long dueMs) {
        env().jdbc(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.jobs() + " (payload, prio, state, due_ms,"
                    + " attempts, enqueued_ms) VALUES (?, 0, " + WorkTables.LIVE + ", ?, 0, ?)")) {
                ps.setString(1, payload);
                ps.setLong(2, dueMs);
                ps.setLong(3, dueMs);
                return ps.executeUpdate();
            }
        });
    }
}
