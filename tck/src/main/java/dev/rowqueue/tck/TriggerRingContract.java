package dev.rowqueue.tck;

import dev.rowqueue.Capability;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SequenceExhaustedException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static dev.rowqueue.tck.RingContract.numbered;
import static dev.rowqueue.tck.RingContract.payloads;
import static dev.rowqueue.tck.RingContract.seqs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Optional: the trigger-enforced ring ({@link RingStrategy#TRIGGER}), offered where the dialect declares
 * {@link Capability#TRIGGER_RING}. The database itself keeps every group at its capacity, also for rows that other
 * programs insert with a plain {@code INSERT INTO <ring> (grp, payload) VALUES (...)}.
 */
public abstract class TriggerRingContract extends Contract {

    @BeforeEach
    void needsTheCapability() {
        env().assume(Capability.TRIGGER_RING);
    }

    private static RingOptions trigger(int capacity) {
        return RingOptions.ofCapacity(capacity).withStrategy(RingStrategy.TRIGGER);
    }

    /** Inserts rows the way a program that knows nothing of rowqueue would: table, group and payload only. */
    /**
     * An application's plain insert, in auto-commit mode at the pool's isolation level. The trigger runs in the
     * application's transaction, so at REPEATABLE READ or SERIALIZABLE two inserts into one group may end in a
     * serialization failure (SQLState class 40, rolled back), which the application retries as it retries any
     * transaction at such a level; so does this one (bounded). At READ COMMITTED none happens.
     */
    private void plainInsert(String table, String group, String payload) {
        for (int attempt = 1; ; attempt++) {
            try {
                env().jdbc(c -> {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                            + " (grp, payload) VALUES (?, ?)")) {
                        ps.setString(1, group);
                        ps.setString(2, payload);
                        return ps.executeUpdate();
                    }
                });
                return;
            } catch (IllegalStateException e) {
                if (attempt >= 100 || !(e.getCause() instanceof SQLException sql) || sql.getSQLState() == null
                        || !sql.getSQLState().startsWith("40")) {
                    throw e;
                }
            }
        }
    }

    @Test
    void optional_trigger_pushes_keep_the_newest_capacity_entries_in_order() {
        RingQueue ring = rq().ring(newName(), trigger(3));
        for (String payload : numbered(1, 8)) {
            ring.push("g", payload);
        }
        assertEquals(List.of(6L, 7L, 8L), seqs(ring.oldestFirst("g")));
        assertEquals(List.of("p8", "p7", "p6"), payloads(ring.newestFirst("g")));
        assertEquals(3, ring.size("g"));
    }

    @Test
    void optional_trigger_push_all_longer_than_the_capacity_returns_consecutive_numbers_and_keeps_its_last_entries() {
        RingQueue ring = rq().ring(newName(), trigger(3));
        ring.push("g", "old");
        assertEquals(LongStream.rangeClosed(2, 8).boxed().collect(Collectors.toList()), ring.pushAll("g", numbered(1, 7)));
        assertEquals(List.of("p5", "p6", "p7"), payloads(ring.oldestFirst("g")));
        assertEquals(List.of(6L, 7L, 8L), seqs(ring.oldestFirst("g")));
    }

    @Test
    void optional_a_plain_insert_from_another_program_is_capped_and_numbered_by_the_database() {
        String name = newName();
        RingQueue ring = rq().ring(name, trigger(3));
        ring.push("g", "by rowqueue");
        for (int i = 1; i <= 4; i++) {
            plainInsert(name, "g", "plain " + i);
        }
        plainInsert(name, "other", "plain");
        List<RingEntry> entries = ring.oldestFirst("g");
        assertEquals(List.of("plain 2", "plain 3", "plain 4"), payloads(entries));
        assertEquals(List.of(3L, 4L, 5L), seqs(entries), "plain inserts take the group's next numbers");
        assertEquals(6, ring.push("g", "by rowqueue again"));
        assertEquals(3, ring.size("g"));
        assertEquals(List.of("plain"), payloads(ring.oldestFirst("other")));
        assertEquals(1, ring.latest("other").orElseThrow().seq());
    }

    @Test
    void optional_concurrent_plain_inserts_keep_every_group_at_its_capacity_with_consecutive_numbers() throws Exception {
        String name = newName();
        RingQueue ring = rq().ring(name, trigger(4));
        int groups = 3;
        int perThread = 16 * groups;
        ConcurrencyContract.together(ConcurrencyContract.THREADS, t -> {
            for (int i = 0; i < perThread; i++) {
                plainInsert(name, "g" + (i % groups), "t" + t + "-" + i);
            }
        });
        long inGroup = (long) ConcurrencyContract.THREADS * perThread / groups;
        for (int g = 0; g < groups; g++) {
            assertEquals(LongStream.rangeClosed(inGroup - 3, inGroup).boxed().collect(Collectors.toList()),
                    seqs(ring.oldestFirst("g" + g)), "group g" + g + " holds its 4 newest of " + inGroup + " numbers");
        }
    }

    @Test
    void optional_trigger_rings_exhaust_like_the_others_and_write_nothing() {
        String name = newName();
        RingQueue ring = rq().ring(name, trigger(3));
        ring.push("g", "a");
        env().execute("UPDATE " + name + "_head SET last_seq = " + (Long.MAX_VALUE - 1) + " WHERE grp = 'g'");
        assertThrows(SequenceExhaustedException.class, () -> ring.pushAll("g", List.of("b", "c")));
        assertEquals(List.of("a"), payloads(ring.oldestFirst("g")));
        assertEquals(Long.MAX_VALUE, ring.push("g", "b"));
        assertThrows(SequenceExhaustedException.class, () -> ring.push("g", "c"));
    }

    @Test
    void optional_the_trigger_ddl_text_works_with_schema_creation_turned_off() {
        String name = newName();
        List<String> ddl = rq().schema().ring(name, trigger(2));
        env().jdbc(c -> {
            try (Statement s = c.createStatement()) {
                for (String statement : ddl) {
                    s.execute(statement);
                }
            }
            return null;
        });
        try (RowQueues managed = env().builder().createSchema(false).build()) {
            RingQueue ring = managed.ring(name, trigger(2));
            plainInsert(name, "g", "x");
            ring.pushAll("g", List.of("y", "z"));
            assertEquals(List.of("y", "z"), payloads(ring.oldestFirst("g")));
        }
    }
}
