package dev.rowqueue.console;

import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.Job;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The overview's slots for the job API: the age of the oldest ready job and the activity sparkline appear once a
 * {@link ConsoleData} fills {@link QueueSummary#oldestReady()} and {@link QueueSummary#activity()}, and not before.
 */
class OverviewSlotsTest {
    private static final QueueInfo MAIL = new QueueInfo("mail", QueueKind.WORK, 0, null, Instant.EPOCH, List.of("mail"));

    private static String overview(QueueSummary summary, String path) {
        Console console = Console.builder(new Fixed(summary)).token(ConsoleFixture.TOKEN).build();
        return console.handle(ConsoleRequest.builder("GET", path).header("Authorization", "Bearer "
                + ConsoleFixture.TOKEN).build()).bodyText();
    }

    @Test
    void without_the_job_api_the_overview_shows_no_empty_columns() {
        String html = overview(QueueSummary.of(MAIL, new QueueStats(1, 0, 0, 0)), "/");
        assertFalse(html.contains("Oldest ready"), html);
        assertFalse(html.contains("Last hour"), html);
    }

    @Test
    void with_it_the_overview_shows_the_oldest_ready_job_and_a_sparkline() {
        QueueActivity a = new QueueActivity(Instant.parse("2026-11-25T10:00:00Z"), List.of(1L, 2L, 3L), List.of(0L, 4L, 2L),
                List.of(0L, 1L, 0L));
        QueueSummary s = new QueueSummary(MAIL, new QueueStats(1, 0, 0, 0), Duration.ofMinutes(3), a);
        String html = overview(s, "/");
        assertTrue(html.contains("<th class=\"num\">Oldest ready</th>"), html);
        assertTrue(html.contains("<td class=\"num\">3 min</td>"), html);
        assertTrue(html.contains("<svg class=\"spark\" viewBox=\"0 0 120 24\" width=\"120\" height=\"24\" role=\"img\""
                + " aria-label=\"6 finished, 1 failed in the last 3 minutes\"><polyline class=\"spark-finished\""
                + " points=\"0.0,23.0 60.0,1.0 120.0,12.0\">"), html);
        String json = overview(s, "/api/queues");
        assertTrue(json.contains("\"oldestReadySeconds\":180,\"activity\":{\"start\":\"2026-11-25T10:00:00Z\","
                + "\"enqueued\":[1,2,3],\"finished\":[0,4,2],\"failed\":[0,1,0],\"started\":[0,0,0],"
                + "\"waitTotalMillis\":[0,0,0],\"waitMaxMillis\":[0,0,0]}"), json);
    }

    /** A ConsoleData with one fixed overview row, as the job API's implementation will fill it. */
    private record Fixed(QueueSummary summary) implements ConsoleData {
        @Override
        public DatabaseInfo database() {
            return new DatabaseInfo("H2", "2", "h2 driver", "h2", Set.of(), 1000);
        }

        @Override
        public List<QueueInfo> queues() {
            return List.of(summary.info());
        }

        @Override
        public List<QueueSummary> overview() {
            return List.of(summary);
        }

        @Override
        public QueueStats stats(String workQueue) {
            return summary.stats();
        }

        @Override
        public List<Job> deadLetters(String workQueue, int limit) {
            return List.of();
        }

        @Override
        public boolean revive(String workQueue, long id) {
            return false;
        }

        @Override
        public int reviveAll(String workQueue) {
            return 0;
        }

        @Override
        public int purgeDead(String workQueue) {
            return 0;
        }

        @Override
        public List<String> groups(String ring) {
            return List.of();
        }

        @Override
        public List<RingEntry> newestEntries(String ring, String group, int limit) {
            return List.of();
        }

        @Override
        public Map<String, Long> counters(String table) {
            return Map.of();
        }

        @Override
        public long counter(String table, String key) {
            return 0;
        }
    }
}
