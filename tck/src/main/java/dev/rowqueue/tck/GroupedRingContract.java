package dev.rowqueue.tck;

import dev.rowqueue.RingQueue;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.rowqueue.tck.RingContract.payloads;
import static dev.rowqueue.tck.RingContract.seqs;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Groups of ring queues in one table: "the last 10 viewers of each article" ("MySQL Queues, part II — groups of
 * queues").
 */
public abstract class GroupedRingContract extends Contract {

    @Test
    void every_group_is_capped_independently() {
        RingQueue ring = rq().ring(newName(), 2);
        ring.pushAll("a", List.of("a1", "a2", "a3"));
        ring.push("b", "b1");
        assertEquals(List.of("a2", "a3"), payloads(ring.oldestFirst("a")));
        assertEquals(List.of("b1"), payloads(ring.oldestFirst("b")));
    }

    @Test
    void every_group_numbers_its_own_entries_from_1() {
        RingQueue ring = rq().ring(newName(), 5);
        assertEquals(1, ring.push("a", "x"));
        assertEquals(2, ring.push("a", "x"));
        assertEquals(1, ring.push("b", "x"));
        assertEquals(3, ring.push("a", "x"));
        assertEquals(List.of(1L, 2L, 3L), seqs(ring.oldestFirst("a")));
        assertEquals(List.of(1L), seqs(ring.oldestFirst("b")));
    }

    @Test
    void the_last_10_viewers_of_each_article_are_kept_newest_first() {
        RingQueue viewers = rq().ring(newName(), 10);
        Map<String, Integer> views = Map.of("article-1", 3, "article-2", 10, "article-3", 27);
        Map<String, Integer> pushed = new HashMap<>();
        for (int round = 0; round < 27; round++) {
            for (Map.Entry<String, Integer> e : views.entrySet()) {
                int n = pushed.getOrDefault(e.getKey(), 0);
                if (n < e.getValue()) {
                    viewers.push(e.getKey(), "user-" + (n + 1));
                    pushed.put(e.getKey(), n + 1);
                }
            }
        }
        assertEquals(List.of("user-3", "user-2", "user-1"), payloads(viewers.newestFirst("article-1")));
        assertEquals(usersNewestFirst(10, 1), payloads(viewers.newestFirst("article-2")));
        assertEquals(usersNewestFirst(27, 18), payloads(viewers.newestFirst("article-3")));
        assertEquals(List.of("article-1", "article-2", "article-3"), viewers.groups());
    }

    private static List<String> usersNewestFirst(int newest, int oldest) {
        List<String> users = new java.util.ArrayList<>();
        for (int i = newest; i >= oldest; i--) {
            users.add("user-" + i);
        }
        return users;
    }

    @Test
    void groups_that_differ_only_in_case_or_trailing_spaces_are_different_groups() {
        RingQueue ring = rq().ring(newName(), 3);
        List<String> groups = List.of("a", "A", "a ", " a", "é", "e\u0301");
        for (String g : groups) {
            ring.push(g, "in [" + g + "]");
        }
        for (String g : groups) {
            assertEquals(List.of("in [" + g + "]"), payloads(ring.oldestFirst(g)), "group [" + g + "]");
            assertEquals(1, ring.latest(g).orElseThrow().seq(), "group [" + g + "] numbers its own entries");
        }
        assertEquals(groups.size(), ring.groups().size());
    }

    @Test
    void clearing_one_group_leaves_the_others_untouched() {
        RingQueue ring = rq().ring(newName(), 3);
        ring.push("a", "a1");
        ring.push("b", "b1");
        ring.clear("a");
        assertEquals(List.of(), ring.oldestFirst("a"));
        assertEquals(List.of("b1"), payloads(ring.oldestFirst("b")));
    }
}
