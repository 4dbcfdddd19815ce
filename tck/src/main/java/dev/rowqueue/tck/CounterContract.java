package dev.rowqueue.tck;

import dev.rowqueue.CounterBlock;
import dev.rowqueue.CounterOverflowException;
import dev.rowqueue.Counters;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Named counters and single-row sequence generators (the MySQL Cookbook's "Using Single-Row Sequence Generators"). */
public abstract class CounterContract extends Contract {

    @Test
    void increment_creates_a_counter_on_first_use_and_returns_the_new_value() {
        Counters c = rq().counters(newName());
        assertEquals(1, c.increment("hits"));
        assertEquals(2, c.increment("hits"));
        assertEquals(2, c.get("hits"));
    }

    @Test
    void increment_by_any_delta_including_negative_returns_the_new_value() {
        Counters c = rq().counters(newName());
        assertEquals(5, c.increment("x", 5));
        assertEquals(-2, c.increment("x", -7));
        assertEquals(-2, c.increment("x", 0));
        assertEquals(-3, c.increment("fresh", -3), "a new counter starts from 0");
    }

    @Test
    void an_unknown_counter_reads_0() {
        Counters c = rq().counters(newName());
        assertEquals(0, c.get("never"));
    }

    @Test
    void set_resets_or_creates_a_counter() {
        Counters c = rq().counters(newName());
        c.increment("x", 40);
        c.set("x", 7);
        assertEquals(8, c.increment("x"));
        c.set("new", Long.MIN_VALUE);
        assertEquals(Long.MIN_VALUE, c.get("new"));
    }

    @Test
    void allocate_returns_consecutive_disjoint_blocks() {
        Counters c = rq().counters(newName());
        CounterBlock a = c.allocate("ids", 100);
        CounterBlock b = c.allocate("ids", 50);
        assertEquals(new CounterBlock(1, 100), a);
        assertEquals(new CounterBlock(101, 150), b);
        assertEquals(150, c.get("ids"));
        assertEquals(100, a.size());
        assertTrue(b.contains(101) && !b.contains(100));
    }

    @Test
    void remove_deletes_a_counter_so_it_reads_0_again() {
        Counters c = rq().counters(newName());
        c.increment("x", 3);
        assertTrue(c.remove("x"));
        assertFalse(c.remove("x"));
        assertEquals(0, c.get("x"));
        assertEquals(1, c.increment("x"));
    }

    @Test
    void all_lists_every_counter_by_key() {
        Counters c = rq().counters(newName());
        c.increment("b", 2);
        c.increment("a", 1);
        c.increment("日本", 3);
        assertEquals(Map.of("a", 1L, "b", 2L, "日本", 3L), c.all());
    }

    @Test
    void counters_in_different_tables_and_keys_are_independent() {
        Counters one = rq().counters(newName());
        Counters two = rq().counters(newName());
        one.increment("k", 10);
        two.increment("k", 20);
        one.increment("other", 1);
        assertEquals(10, one.get("k"));
        assertEquals(20, two.get("k"));
    }

    @Test
    void keys_that_differ_only_in_case_or_trailing_spaces_are_different_counters() {
        Counters c = rq().counters(newName());
        List<String> keys = List.of("k", "K", "k ", " k");
        for (int i = 0; i < keys.size(); i++) {
            c.increment(keys.get(i), i + 1);
        }
        for (int i = 0; i < keys.size(); i++) {
            assertEquals(i + 1, c.get(keys.get(i)), "counter [" + keys.get(i) + "]");
        }
        assertEquals(keys.size(), c.all().size());
    }

    @Test
    void an_increment_past_the_64_bit_range_is_refused_and_changes_nothing() {
        Counters c = rq().counters(newName());
        c.set("up", Long.MAX_VALUE - 1);
        assertEquals(Long.MAX_VALUE, c.increment("up"));
        assertThrows(CounterOverflowException.class, () -> c.increment("up"));
        assertThrows(CounterOverflowException.class, () -> c.allocate("up", 10));
        assertEquals(Long.MAX_VALUE, c.get("up"));
        c.set("down", Long.MIN_VALUE + 1);
        assertEquals(Long.MIN_VALUE, c.increment("down", -1));
        assertThrows(CounterOverflowException.class, () -> c.increment("down", -1));
        assertEquals(Long.MIN_VALUE, c.get("down"));
        assertEquals(-1, c.increment("down", Long.MAX_VALUE), "a large delta that stays in range is fine");
    }
}
