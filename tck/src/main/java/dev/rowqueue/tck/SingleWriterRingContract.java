package dev.rowqueue.tck;

import dev.rowqueue.Capability;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.rowqueue.tck.RingContract.numbered;
import static dev.rowqueue.tck.RingContract.payloads;
import static dev.rowqueue.tck.RingContract.seqs;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Optional: the source articles' single-statement push ({@link RingStrategy#SINGLE_WRITER}), offered where the dialect
 * declares {@link Capability#SINGLE_WRITER_RING}. With one writer per group it behaves like the safe strategy.
 */
public abstract class SingleWriterRingContract extends Contract {

    @BeforeEach
    void needsTheCapability() {
        env().assume(Capability.SINGLE_WRITER_RING);
    }

    private RingQueue ring(int capacity) {
        return rq().ring(newName(), RingOptions.ofCapacity(capacity).withStrategy(RingStrategy.SINGLE_WRITER));
    }

    @Test
    void optional_single_writer_pushes_keep_the_newest_capacity_entries_in_order() {
        RingQueue ring = ring(5);
        for (String fruit : List.of("apples", "oranges", "peaches", "cherries", "pears", "bananas")) {
            ring.push("fruit", fruit);
        }
        assertEquals(List.of("oranges", "peaches", "cherries", "pears", "bananas"), payloads(ring.oldestFirst("fruit")));
        assertEquals(List.of(2L, 3L, 4L, 5L, 6L), seqs(ring.oldestFirst("fruit")));
    }

    @Test
    void optional_single_writer_groups_are_capped_independently_and_numbered_from_1() {
        RingQueue ring = ring(2);
        assertEquals(1, ring.push("a", "a1"));
        assertEquals(1, ring.push("b", "b1"));
        assertEquals(List.of(2L, 3L), ring.pushAll("a", List.of("a2", "a3")));
        assertEquals(List.of("a2", "a3"), payloads(ring.oldestFirst("a")));
        assertEquals(List.of("b1"), payloads(ring.oldestFirst("b")));
    }

    @Test
    void optional_single_writer_push_all_longer_than_the_capacity_keeps_its_last_entries() {
        RingQueue ring = ring(3);
        ring.pushAll("g", numbered(1, 7));
        assertEquals(List.of("p5", "p6", "p7"), payloads(ring.oldestFirst("g")));
        assertEquals(List.of(5L, 6L, 7L), seqs(ring.oldestFirst("g")));
    }
}
