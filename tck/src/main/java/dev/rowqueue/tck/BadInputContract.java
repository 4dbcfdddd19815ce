package dev.rowqueue.tck;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.InvalidNameException;
import dev.rowqueue.Job;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Bad input is refused with an {@link IllegalArgumentException} before any SQL reaches the database, and leaves
 * nothing half-written.
 */
public abstract class BadInputContract extends Contract {

    /** Asserts the call is refused and that not one statement was executed. */
    private IllegalArgumentException refused(Executable call) {
        long before = env().counting().executions();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertEquals(before, env().counting().executions(), "no SQL may run for refused input: " + e.getMessage());
        return e;
    }

    private static final List<String> BAD_NAMES = Arrays.asList(null, "", "1abc", "_abc", "a-b", "a b", "a;b",
            "drop table x;--", "café", "tab\tle", "select", "ORDER", "user", "group", "a".repeat(26), "rowqueue_x",
            "\"quoted\"");

    @Test
    void invalid_queue_names_are_refused() {
        for (String name : BAD_NAMES) {
            String shown = String.valueOf(name);
            assertThrows(InvalidNameException.class, () -> rq().ring(name, 3), shown);
            refused(() -> rq().ring(name, 3));
            refused(() -> rq().workQueue(name));
            refused(() -> rq().counters(name));
            refused(() -> rq().dropQueue(name));
            refused(() -> rq().schema().workQueue(name));
        }
        String longest = env().track("a".repeat(RowQueues.MAX_NAME_LENGTH));
        rq().counters(longest).increment("k"); // the longest name fits every database
    }

    @Test
    void a_capacity_below_1_is_refused() {
        String name = newName();
        refused(() -> rq().ring(name, 0));
        refused(() -> rq().ring(name, -1));
        refused(() -> RingOptions.ofCapacity(0));
    }

    @Test
    void null_empty_over_long_or_broken_groups_are_refused() {
        RingQueue ring = rq().ring(newName(), 3);
        for (String group : Arrays.asList(null, "", "g".repeat(RingQueue.MAX_GROUP_LENGTH + 1), "nul\u0000",
                "broken\uD800", "\uDC00broken")) {
            refused(() -> ring.push(group, "x"));
            refused(() -> ring.pushAll(group, List.of("x")));
            refused(() -> ring.newestFirst(group));
            refused(() -> ring.oldestFirst(group));
            refused(() -> ring.size(group));
            refused(() -> ring.clear(group));
        }
        assertEquals(List.of(), ring.groups());
    }

    @Test
    void null_over_long_or_broken_payloads_are_refused() {
        RingQueue ring = rq().ring(newName(), 3);
        WorkQueue q = rq().workQueue(newName());
        int max = rq().database().maxPayloadLength();
        for (String payload : Arrays.asList(null, "x".repeat(max + 1), "nul\u0000inside", "half \uD83D")) {
            refused(() -> ring.push("g", payload));
            refused(() -> q.enqueue(payload));
            refused(() -> q.enqueue(payload, Enqueue.defaults().withPriority(1)));
        }
        assertEquals(0, ring.size("g"));
        assertEquals(0, q.stats().total());
    }

    @Test
    void one_bad_payload_in_a_batch_writes_nothing() {
        RingQueue ring = rq().ring(newName(), 10);
        WorkQueue q = rq().workQueue(newName());
        int max = rq().database().maxPayloadLength();
        refused(() -> ring.pushAll("g", Arrays.asList("ok", null, "ok")));
        refused(() -> ring.pushAll("g", List.of("ok", "x".repeat(max + 1))));
        refused(() -> q.enqueueAll(Arrays.asList("ok", "ok", null), Enqueue.defaults()));
        refused(() -> q.enqueueAll(List.of("ok", "bad\u0000"), Enqueue.defaults()));
        refused(() -> ring.pushAll("g", List.of()));
        refused(() -> q.enqueueAll(List.of(), Enqueue.defaults()));
        refused(() -> ring.pushAll("g", null));
        assertEquals(0, ring.size("g"));
        assertEquals(0, q.stats().total());
    }

    @Test
    void negative_delays_and_non_positive_leases_are_refused() {
        WorkQueue q = rq().workQueue(newName());
        refused(() -> Enqueue.defaults().withDelay(Duration.ofSeconds(-1)));
        refused(() -> Enqueue.defaults().withPriority(1).withDelay(Duration.ofMillis(-1)));
        refused(() -> WorkQueueOptions.defaults().withLeaseDuration(Duration.ZERO));
        refused(() -> WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(-5)));
        refused(() -> WorkQueueOptions.defaults().withMaxAttempts(0));
        refused(() -> q.claim(1, Duration.ofMillis(-1)));
        refused(() -> q.claim(1, null));
        q.enqueue("x");
        Job job = q.claim(1).get(0);
        refused(() -> q.nack(job, Duration.ofSeconds(-1)));
        refused(() -> q.nack(job, null));
        refused(() -> q.extendLease(job, Duration.ZERO));
        refused(() -> q.extendLease(job, Duration.ofSeconds(-1)));
        assertEquals(0, q.stats().ready() + q.stats().scheduled() + q.stats().dead(), "the job is still leased");
    }

    @Test
    void batch_sizes_and_limits_out_of_range_are_refused() {
        WorkQueue q = rq().workQueue(newName());
        RingQueue ring = rq().ring(newName(), 3);
        refused(() -> q.claim(0));
        refused(() -> q.claim(-1));
        refused(() -> q.claim(1001));
        refused(() -> q.claim(0, Duration.ofSeconds(1)));
        refused(() -> q.rotate("c", 0));
        refused(() -> q.rotate("c", 1001));
        refused(() -> q.deadLetters(0));
        refused(() -> ring.newestFirst("g", 0));
    }

    @Test
    void bad_cursor_names_are_refused() {
        WorkQueue q = rq().workQueue(newName());
        for (String cursor : Arrays.asList(null, "", "c".repeat(201), "\u0000")) {
            refused(() -> q.rotate(cursor, 1));
        }
    }

    @Test
    void bad_counter_keys_and_block_sizes_are_refused() {
        Counters c = rq().counters(newName());
        for (String key : Arrays.asList(null, "", "k".repeat(Counters.MAX_KEY_LENGTH + 1), "\uDFFF")) {
            refused(() -> c.increment(key));
            refused(() -> c.increment(key, 5));
            refused(() -> c.get(key));
            refused(() -> c.set(key, 1));
            refused(() -> c.remove(key));
        }
        refused(() -> c.allocate("k", 0));
        refused(() -> c.allocate("k", -3));
        assertEquals(0, c.all().size());
    }

    @Test
    void a_job_without_a_lease_cannot_be_acked_nacked_or_released() {
        WorkQueue q = rq().workQueue(newName());
        long id = q.enqueue("x");
        Job forged = new Job(id, "x", 0, 0, Instant.now(), null, null, 0);
        refused(() -> q.ack(forged));
        refused(() -> q.nack(forged, Duration.ZERO));
        refused(() -> q.release(forged));
        refused(() -> q.extendLease(forged, Duration.ofSeconds(1)));
        assertThrows(NullPointerException.class, () -> q.ack(null));
        assertEquals(1, q.stats().ready());
    }

    @Test
    void ack_and_claim_refuses_bad_jobs_and_batch_sizes_and_changes_nothing() {
        WorkQueue q = rq().workQueue(newName());
        q.enqueueAll(List.of("a", "b"), Enqueue.defaults());
        Job held = q.claim(1).get(0);
        Job forged = new Job(held.id() + 1, "b", 0, 0, Instant.now(), null, null, 0);
        refused(() -> q.ackAndClaim(List.of(held), 0));
        refused(() -> q.ackAndClaim(List.of(held), 1001));
        refused(() -> q.ackAndClaim(List.of(held, forged), 1));
        refused(() -> q.ackAndClaim(List.of(held, held), 1));
        List<Job> tooMany = new java.util.ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            tooMany.add(new Job(held.id() + 10 + i, "x", 0, 0, Instant.now(), null, null, 7));
        }
        refused(() -> q.ackAndClaim(tooMany, 1));
        assertThrows(NullPointerException.class, () -> q.ackAndClaim(null, 1));
        assertThrows(NullPointerException.class, () -> q.ackAndClaim(Arrays.asList(held, null), 1));
        assertEquals(1, q.stats().ready(), "nothing was acked or claimed");
        assertEquals(2, q.stats().total());
    }

    @Test
    void a_payload_limit_set_on_the_builder_is_enforced() {
        String name = newName();
        try (RowQueues small = env().builder().maxPayloadLength(10).build()) {
            RingQueue ring = small.ring(name, 3);
            ring.push("g", "x".repeat(10));
            refused(() -> ring.push("g", "x".repeat(11)));
            assertEquals(1, ring.size("g"));
        }
        assertThrows(IllegalArgumentException.class, () -> env().builder().maxPayloadLength(0));
        int max = rq().database().maxPayloadLength();
        if (max < Integer.MAX_VALUE) {
            assertThrows(IllegalArgumentException.class, () -> env().builder().maxPayloadLength(max + 1).build(),
                    "a limit above what the dialect's column holds");
        }
    }
}
