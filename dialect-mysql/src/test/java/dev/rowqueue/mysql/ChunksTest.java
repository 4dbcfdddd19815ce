package dev.rowqueue.mysql;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ChunksTest {

    @Test
    void chunks_hold_at_most_max_rows_in_order_from_the_first_written() {
        List<List<Integer>> chunks = Chunks.of(Collections.nCopies(250, "x"), 30);
        assertEquals(List.of(100, 100, 20), chunks.stream().map(List::size).toList());
        assertEquals(30, chunks.get(0).get(0));
        assertEquals(249, chunks.get(2).get(19));
    }

    @Test
    void a_chunk_ends_before_the_payload_that_would_pass_max_chars_but_holds_one_payload_at_least() {
        String half = "x".repeat((int) (Chunks.MAX_CHARS / 2));
        String big = "y".repeat((int) Chunks.MAX_CHARS + 1);
        assertEquals(List.of(List.of(0, 1), List.of(2), List.of(3), List.of(4)),
                Chunks.of(List.of(half, half, "z", big, "w"), 0));
    }

    @Test
    void nothing_to_write_is_one_empty_chunk() {
        assertEquals(List.of(List.of()), Chunks.of(List.of("a", "b"), 2));
    }
}
