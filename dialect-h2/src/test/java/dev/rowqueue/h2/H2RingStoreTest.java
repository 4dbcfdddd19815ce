package dev.rowqueue.h2;

import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.CountingDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.PreparedStatement;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the safe ring talks to H2: statement counts and shapes that the TCK, which checks results, does not see. */
class H2RingStoreTest {

    private static CountingDataSource dataSource(String name) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return new CountingDataSource(h2);
    }

    @Test
    void a_push_of_one_payload_is_one_statement_in_auto_commit_mode_for_new_and_existing_groups() {
        CountingDataSource counting = dataSource("push_one");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            RingQueue ring = rq.ring("views", 3);
            ring.push("warm-up", "x");
            long commits = counting.commits();
            long session = counting.sessionCalls();
            for (int i = 0; i < 5; i++) { // the first creates the group's head row
                counting.record();
                ring.push("new", "p");
                List<String> sql = counting.recorded();
                assertEquals(1, sql.size(), sql.toString());
                assertTrue(sql.get(0).startsWith("SELECT seq FROM FINAL TABLE (MERGE INTO views "), sql.get(0));
            }
            assertEquals(commits, counting.commits(), "no JDBC commit: auto-commit");
            assertEquals(session, counting.sessionCalls(), "no auto-commit or isolation switch");
            assertEquals(List.of(5L, 4L, 3L), ring.newestFirst("new").stream().map(RingEntry::seq).toList(),
                    "the group wrapped around its three slots");
            counting.record();
            assertEquals(List.of(6L, 7L), ring.pushAll("new", List.of("a", "b")));
            assertEquals(2, counting.recorded().size(), "several payloads: the head, then the slots in one batch");
        }
    }

    @Test
    void newest_first_reads_with_a_limit_look_up_their_slots_through_the_head_row() throws SQLException {
        CountingDataSource counting = dataSource("newest");
        try (RowQueues rq = RowQueues.builder(counting).build()) {
            RingQueue ring = rq.ring("big", 1000);
            for (int i = 1; i <= 1005; i++) {
                ring.push("g", "p" + i);
            }
            counting.record();
            assertEquals(List.of("p1005", "p1004", "p1003", "p1002", "p1001", "p1000"),
                    ring.newestFirst("g", 6).stream().map(RingEntry::payload).toList(), "across the wrap");
            List<String> sql = counting.recorded();
            assertEquals(1, sql.size(), sql.toString());
            assertTrue(sql.get(0).contains("SYSTEM_RANGE"), sql.get(0));
            try (Connection c = counting.getConnection();
                 PreparedStatement explain = c.prepareStatement("EXPLAIN " + sql.get(0))) {
                try (ResultSet plan = explain.executeQuery()) {
                    assertTrue(plan.next());
                    String text = plan.getString(1).replaceAll("\\s+", " ");
                    assertTrue(text.matches("(?s).*PRIMARY_KEY_\\w+: GRP = \\?\\d+ AND SLOT IN\\(.*"),
                            "the entries are looked up by (grp, slot), not sorted: " + text);
                }
            }
            ring.clear("g");
            ring.push("g", "after clear");
            assertEquals(List.of("after clear"), ring.newestFirst("g", 6).stream().map(RingEntry::payload).toList(),
                    "slots holding numbers from before the clear are left out");
        }
    }
}
