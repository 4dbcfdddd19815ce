package dev.rowqueue.postgres;

import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.postgresql.PGConnection;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trigger-enforced ring on PostgreSQL, written to by programs that know nothing of rowqueue: their own
 * connections, a multi-row {@code INSERT}, {@code COPY}, a transaction that rolls back, eight of them at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresTriggerRingTest {

    private PgFixture db;
    private RowQueues rq;

    @BeforeAll
    void open() {
        db = PgFixture.newest("trigger");
        rq = db.builder().build();
    }

    @AfterAll
    void close() {
        rq.close();
        db.close();
    }

    private RingQueue ring(String name, int capacity) {
        return rq.ring(name, RingOptions.ofCapacity(capacity).withStrategy(RingStrategy.TRIGGER));
    }

    private static List<String> payloads(List<RingEntry> entries) {
        return entries.stream().map(RingEntry::payload).collect(Collectors.toList());
    }

    private static List<Long> seqs(List<RingEntry> entries) {
        return entries.stream().map(RingEntry::seq).collect(Collectors.toList());
    }

    @Test
    void a_plain_multi_row_insert_from_another_program_is_capped() throws SQLException {
        RingQueue ring = ring("trig_plain", 3);
        try (Connection other = db.plain("another-program"); Statement s = other.createStatement()) {
            assertEquals(5, s.executeUpdate("INSERT INTO trig_plain (grp, payload) VALUES ('g', 'a'), ('g', 'b'),"
                    + " ('g', 'c'), ('g', 'd'), ('h', 'x')"));
        }
        assertEquals(List.of("b", "c", "d"), payloads(ring.oldestFirst("g")));
        assertEquals(List.of(2L, 3L, 4L), seqs(ring.oldestFirst("g")));
        assertEquals(3, db.queryLong("SELECT COUNT(*) FROM trig_plain WHERE grp = 'g'"), "the table itself is capped");
        assertEquals(5, ring.push("g", "e"), "rowqueue continues the numbering");
    }

    @Test
    void copy_from_another_program_is_capped() throws Exception {
        RingQueue ring = ring("trig_copy", 4);
        try (Connection other = db.plain("bulk-loader")) {
            StringBuilder rows = new StringBuilder();
            for (int i = 1; i <= 10; i++) {
                rows.append("g\tline ").append(i).append('\n');
            }
            long copied = other.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY trig_copy (grp, payload) FROM STDIN", new StringReader(rows.toString()));
            assertEquals(10, copied);
        }
        assertEquals(List.of("line 7", "line 8", "line 9", "line 10"), payloads(ring.oldestFirst("g")));
        assertEquals(List.of(7L, 8L, 9L, 10L), seqs(ring.oldestFirst("g")));
    }

    @Test
    void values_another_program_gives_for_seq_and_slot_are_overwritten_and_pushed_ms_is_kept() throws SQLException {
        RingQueue ring = ring("trig_values", 2);
        try (Connection other = db.plain("another-program");
             PreparedStatement ps = other.prepareStatement(
                     "INSERT INTO trig_values (grp, slot, seq, payload, pushed_ms) VALUES ('g', 99, 12345, 'x', 7)")) {
            ps.executeUpdate();
        }
        RingEntry e = ring.latest("g").orElseThrow();
        assertEquals(1, e.seq());
        assertEquals(7, e.pushedAt().toEpochMilli(), "a given push time is kept");
        assertEquals(1, db.queryLong("SELECT slot FROM trig_values WHERE grp = 'g'"));
    }

    @Test
    void a_rolled_back_insert_leaves_the_ring_as_it_was() throws SQLException {
        RingQueue ring = ring("trig_rollback", 2);
        ring.pushAll("g", List.of("a", "b"));
        try (Connection other = db.plain("another-program")) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.executeUpdate("INSERT INTO trig_rollback (grp, payload) VALUES ('g', 'c'), ('g', 'd')");
            }
            other.rollback();
        }
        assertEquals(List.of("a", "b"), payloads(ring.oldestFirst("g")));
        assertEquals(3, ring.push("g", "c"), "the rolled-back numbers are not used");
    }

    @Test
    void eight_programs_inserting_at_once_with_rowqueue_pushing_too_keep_each_group_exact() throws Exception {
        RingQueue ring = ring("trig_many", 10);
        int programs = 8;
        int perProgram = 60;
        ExecutorService pool = Executors.newFixedThreadPool(programs + 1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < programs; p++) {
                int program = p;
                done.add(pool.submit(() -> {
                    try (Connection other = db.plain("program-" + program);
                         PreparedStatement ps = other.prepareStatement(
                                 "INSERT INTO trig_many (grp, payload) VALUES (?, ?)")) {
                        for (int i = 0; i < perProgram; i++) {
                            ps.setString(1, "g" + (i % 2));
                            ps.setString(2, "p" + program + "-" + i);
                            ps.executeUpdate();
                        }
                    }
                    return null;
                }));
            }
            done.add(pool.submit(() -> {
                for (int i = 0; i < perProgram; i++) {
                    ring.push("g" + (i % 2), "rowqueue-" + i);
                }
                return null;
            }));
            for (Future<?> f : done) {
                f.get(3, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        long perGroup = (long) (programs + 1) * perProgram / 2;
        for (String g : List.of("g0", "g1")) {
            assertEquals(LongStream.rangeClosed(perGroup - 9, perGroup).boxed().collect(Collectors.toList()),
                    seqs(ring.oldestFirst(g)), g);
            assertEquals(10, db.queryLong("SELECT COUNT(*) FROM trig_many WHERE grp = '" + g + "'"));
        }
    }

    @Test
    void the_schema_script_names_the_capacity_in_the_trigger() {
        String script = rq.schema().script(rq.schema().ring("trig_script", RingOptions.ofCapacity(42)
                .withStrategy(RingStrategy.TRIGGER)));
        assertTrue(script.contains("rowqueue_ring_cap('trig_script_head', '42')"), script);
        assertTrue(script.contains("pg_advisory_xact_lock"), script);
    }
}
