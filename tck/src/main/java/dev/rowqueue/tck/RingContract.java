package dev.rowqueue.tck;

import dev.rowqueue.QueueConflictException;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SequenceExhaustedException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Capped FIFO ring queues, one group at a time (Baron Schwartz's "How to implement a queue in SQL" and "MySQL Queues,
 * part II — groups of queues").
 */
public abstract class RingContract extends Contract {

    static List<String> payloads(List<RingEntry> entries) {
        return entries.stream().map(RingEntry::payload).collect(Collectors.toList());
    }

    static List<Long> seqs(List<RingEntry> entries) {
        return entries.stream().map(RingEntry::seq).collect(Collectors.toList());
    }

    static List<String> numbered(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(i -> "p" + i).collect(Collectors.toList());
    }

    @Test
    void the_first_push_into_a_group_gets_sequence_number_1_and_the_next_ones_count_up() {
        RingQueue ring = rq().ring(newName(), 10);
        assertEquals(1, ring.push("g", "a"));
        assertEquals(2, ring.push("g", "b"));
        assertEquals(3, ring.push("g", "c"));
        assertEquals(List.of(1L, 2L, 3L), seqs(ring.oldestFirst("g")));
    }

    @Test
    void a_full_ring_evicts_its_oldest_entry_on_every_push() {
        RingQueue ring = rq().ring(newName(), 3);
        for (int i = 1; i <= 10; i++) {
            ring.push("g", "p" + i);
            List<RingEntry> entries = ring.oldestFirst("g");
            int first = Math.max(1, i - 2);
            assertEquals(numbered(first, i), payloads(entries), "after push " + i);
            assertEquals(LongStream.rangeClosed(first, i).boxed().collect(Collectors.toList()), seqs(entries));
        }
    }

    @Test
    void newest_first_is_oldest_first_reversed() {
        RingQueue ring = rq().ring(newName(), 4);
        ring.pushAll("g", numbered(1, 6));
        List<RingEntry> newest = ring.newestFirst("g");
        List<RingEntry> oldest = new ArrayList<>(ring.oldestFirst("g"));
        java.util.Collections.reverse(oldest);
        assertEquals(oldest, newest);
        assertEquals(List.of("p6", "p5", "p4", "p3"), payloads(newest));
    }

    @Test
    void entries_carry_their_push_time_in_push_order() {
        RingQueue ring = rq().ring(newName(), 5);
        Instant before = Instant.now();
        ring.push("g", "x");
        ring.push("g", "y");
        List<RingEntry> entries = ring.oldestFirst("g");
        assertTrue(!entries.get(1).pushedAt().isBefore(entries.get(0).pushedAt()), "push times are non-decreasing");
        Duration skew = Duration.between(before, entries.get(0).pushedAt()).abs();
        assertTrue(skew.compareTo(Duration.ofHours(1)) < 0,
                "push time " + entries.get(0).pushedAt() + " is near the current time " + before
                        + " (times are epoch milliseconds, independent of time zones)");
    }

    @Test
    void capacity_one_keeps_only_the_latest_entry() {
        RingQueue ring = rq().ring(newName(), 1);
        ring.push("g", "first");
        ring.push("g", "second");
        assertEquals(List.of("second"), payloads(ring.newestFirst("g")));
        assertEquals(2, ring.latest("g").orElseThrow().seq());
    }

    @Test
    void push_all_assigns_consecutive_sequence_numbers_in_list_order() {
        RingQueue ring = rq().ring(newName(), 10);
        ring.push("g", "p0");
        assertEquals(List.of(2L, 3L, 4L), ring.pushAll("g", List.of("p1", "p2", "p3")));
        assertEquals(List.of("p0", "p1", "p2", "p3"), payloads(ring.oldestFirst("g")));
    }

    @Test
    void push_all_longer_than_the_capacity_keeps_only_its_newest_entries() {
        RingQueue ring = rq().ring(newName(), 3);
        ring.push("g", "old");
        assertEquals(LongStream.rangeClosed(2, 8).boxed().collect(Collectors.toList()),
                ring.pushAll("g", numbered(1, 7)));
        assertEquals(List.of("p5", "p6", "p7"), payloads(ring.oldestFirst("g")));
        assertEquals(List.of(6L, 7L, 8L), seqs(ring.oldestFirst("g")));
    }

    @Test
    void size_counts_entries_up_to_the_capacity() {
        RingQueue ring = rq().ring(newName(), 3);
        assertEquals(0, ring.size("g"));
        ring.push("g", "a");
        ring.push("g", "b");
        assertEquals(2, ring.size("g"));
        ring.pushAll("g", numbered(1, 5));
        assertEquals(3, ring.size("g"));
    }

    @Test
    void newest_first_with_a_limit_returns_only_the_newest_entries() {
        RingQueue ring = rq().ring(newName(), 10);
        ring.pushAll("g", numbered(1, 8));
        assertEquals(List.of("p8", "p7", "p6"), payloads(ring.newestFirst("g", 3)));
        assertEquals(8, ring.newestFirst("g", 50).size());
    }

    @Test
    void newest_first_with_a_limit_is_exact_after_the_ring_wrapped_and_after_a_clear() {
        RingQueue ring = rq().ring(newName(), 5);
        ring.pushAll("g", numbered(1, 9));
        for (int i = 10; i <= 13; i++) {
            ring.push("g", "p" + i);
        }
        assertEquals(List.of("p13", "p12", "p11"), payloads(ring.newestFirst("g", 3)));
        assertEquals(List.of("p13", "p12", "p11", "p10"), payloads(ring.newestFirst("g", 4)));
        assertEquals(List.of("p13", "p12", "p11", "p10", "p9"), payloads(ring.newestFirst("g", 5)));
        assertEquals(List.of(13L, 12L), ring.newestFirst("g", 2).stream().map(RingEntry::seq).toList());
        ring.clear("g");
        assertEquals(List.of(), ring.newestFirst("g", 3));
        ring.pushAll("g", List.of("x", "y"));
        assertEquals(List.of("y", "x"), payloads(ring.newestFirst("g", 3)));
        assertEquals(List.of("y"), payloads(ring.newestFirst("g", 1)));
        assertEquals("y", ring.latest("g").orElseThrow().payload());
        assertEquals(15, ring.latest("g").orElseThrow().seq());
    }

    @Test
    void latest_is_the_newest_entry_or_empty() {
        RingQueue ring = rq().ring(newName(), 3);
        assertTrue(ring.latest("g").isEmpty());
        ring.pushAll("g", numbered(1, 4));
        RingEntry latest = ring.latest("g").orElseThrow();
        assertEquals("p4", latest.payload());
        assertEquals(4, latest.seq());
    }

    @Test
    void an_unknown_group_reads_as_empty() {
        RingQueue ring = rq().ring(newName(), 3);
        ring.push("known", "x");
        assertEquals(List.of(), ring.newestFirst("unknown"));
        assertEquals(List.of(), ring.oldestFirst("unknown"));
        assertEquals(0, ring.size("unknown"));
    }

    @Test
    void clear_empties_a_group_and_its_sequence_numbers_keep_counting() {
        RingQueue ring = rq().ring(newName(), 3);
        ring.pushAll("g", numbered(1, 4));
        ring.clear("g");
        assertEquals(0, ring.size("g"));
        assertEquals(List.of(), ring.groups());
        assertEquals(5, ring.push("g", "after"), "sequence numbers are never reused");
        assertEquals(List.of("after"), payloads(ring.oldestFirst("g")));
    }

    @Test
    void groups_lists_the_groups_that_hold_entries_in_ascending_order() {
        RingQueue ring = rq().ring(newName(), 3);
        ring.push("beta", "x");
        ring.push("alpha", "x");
        ring.push("gamma", "x");
        ring.clear("gamma");
        assertEquals(List.of("alpha", "beta"), ring.groups());
    }

    @Test
    void payloads_round_trip_exactly() {
        RingQueue ring = rq().ring(newName(), 20);
        int max = rq().database().maxPayloadLength();
        List<String> payloads = List.of("", " ", "plain", "O'Reilly \"quoted\" `back`", "back\\slash",
                "line\nbreak\r\ttab", "café ünïcödé", "日本語のテキスト", "emoji 😀🎉 and 𝄞", "'); DROP TABLE x; --",
                "%_wildcards_%", "x".repeat(Math.min(max, 4000)), "é".repeat(Math.min(max, 4000)));
        ring.pushAll("g", payloads);
        assertEquals(payloads, payloads(ring.oldestFirst("g")));
    }

    @Test
    void group_names_round_trip_exactly() {
        RingQueue ring = rq().ring(newName(), 2);
        List<String> groups = List.of("article-42", "Ärger", "日本", "with space", "O'Reilly", "g".repeat(200));
        for (String g : groups) {
            ring.push(g, "for " + g.length());
        }
        assertEquals(groups.stream().sorted().collect(Collectors.toList()), ring.groups());
        for (String g : groups) {
            assertEquals(List.of("for " + g.length()), payloads(ring.newestFirst(g)), g);
        }
    }

    @Test
    void sequence_numbers_never_wrap_exhaustion_is_a_clear_error_and_writes_nothing() {
        String name = newName();
        RingQueue ring = rq().ring(name, 3);
        ring.push("g", "a");
        env().execute("UPDATE " + name + "_head SET last_seq = " + (Long.MAX_VALUE - 2) + " WHERE grp = 'g'");
        assertEquals(Long.MAX_VALUE - 1, ring.push("g", "b"));
        assertEquals(Long.MAX_VALUE, ring.push("g", "c"));
        List<RingEntry> before = ring.oldestFirst("g");
        assertThrows(SequenceExhaustedException.class, () -> ring.push("g", "d"));
        assertThrows(SequenceExhaustedException.class, () -> ring.pushAll("g", List.of("e", "f")));
        assertEquals(before, ring.oldestFirst("g"), "an exhausted group keeps its entries unchanged");
        assertEquals(1, ring.push("other", "x"), "other groups are unaffected");
    }

    @Test
    void push_all_that_would_pass_the_last_sequence_number_writes_nothing() {
        String name = newName();
        RingQueue ring = rq().ring(name, 5);
        ring.push("g", "a");
        env().execute("UPDATE " + name + "_head SET last_seq = " + (Long.MAX_VALUE - 1) + " WHERE grp = 'g'");
        assertThrows(SequenceExhaustedException.class, () -> ring.pushAll("g", List.of("b", "c")));
        assertEquals(List.of("a"), payloads(ring.oldestFirst("g")));
        assertEquals(Long.MAX_VALUE, ring.push("g", "b"));
    }

    @Test
    void a_ring_reopened_with_another_capacity_is_refused() {
        String name = newName();
        rq().ring(name, 5).push("g", "x");
        QueueConflictException e = assertThrows(QueueConflictException.class, () -> rq().ring(name, 6));
        assertTrue(e.getMessage().contains("capacity 5"), e.getMessage());
    }

    @Test
    void a_ring_reopened_by_another_node_sees_the_same_entries_and_continues_numbering() {
        String name = newName();
        rq().ring(name, 3).pushAll("g", numbered(1, 4));
        try (RowQueues other = env().builder().build()) {
            RingQueue again = other.ring(name, 3);
            assertEquals(List.of("p2", "p3", "p4"), payloads(again.oldestFirst("g")));
            assertEquals(5, again.push("g", "p5"));
        }
    }
}
