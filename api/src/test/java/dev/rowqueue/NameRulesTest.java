package dev.rowqueue;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queue names and schedule names follow two rules, each documented in docs/schedules.md and each refusal naming the
 * other rule, since that is where a user meets the difference (issue 37, part 4).
 */
class NameRulesTest {

    private static RowQueues rq(String name) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return RowQueues.builder(dataSource).scheduler(false).build();
    }

    @Test
    void a_schedule_name_is_not_always_a_queue_name_and_each_refusal_says_why() {
        try (RowQueues rq = rq("name_rules")) {
            // the same text: a schedule name, not a queue name
            IllegalArgumentException queue = assertThrows(IllegalArgumentException.class,
                    () -> rq.workQueue("daily-report"));
            assertTrue(queue.getMessage().contains("stricter than a schedule name"), queue.getMessage());
            assertTrue(queue.getMessage().contains("up to " + Schedules.MAX_NAME_LENGTH + " letters, digits, '_', '.'"
                    + " and '-'"), queue.getMessage());
            String tooLong = "q".repeat(RowQueues.MAX_NAME_LENGTH + 1);
            IllegalArgumentException longQueue = assertThrows(IllegalArgumentException.class, () -> rq.workQueue(tooLong));
            assertTrue(longQueue.getMessage().contains("stricter than a schedule name"), longQueue.getMessage());

            rq.workQueue("Reports").create();
            assertEquals("reports", rq.workQueue("REPORTS").name(), "queue names are folded to lower case");
            Schedules s = rq.schedules();
            s.define("daily-report", Schedule.every(Duration.ofHours(1)), ScheduleOptions.forQueue("reports"));
            s.define("Daily.Report", Schedule.every(Duration.ofHours(2)), ScheduleOptions.forQueue("reports"));
            s.define("daily.report", Schedule.every(Duration.ofHours(3)), ScheduleOptions.forQueue("reports"));
            s.define("s".repeat(Schedules.MAX_NAME_LENGTH), Schedule.every(Duration.ofHours(1)),
                    ScheduleOptions.forQueue("reports"));
            assertEquals(List.of("Daily.Report", "daily-report", "daily.report", "s".repeat(Schedules.MAX_NAME_LENGTH)),
                    s.list().stream().map(ScheduleInfo::name).sorted().toList(), "schedule names keep their case");

            IllegalArgumentException schedule = assertThrows(IllegalArgumentException.class, () -> s.define(
                    "daily report", Schedule.every(Duration.ofHours(1)), ScheduleOptions.forQueue("reports")));
            assertTrue(schedule.getMessage().contains("'Daily' and 'daily' are two schedules"), schedule.getMessage());
            assertTrue(schedule.getMessage().contains("queue names follow a stricter rule"), schedule.getMessage());
            assertThrows(IllegalArgumentException.class, () -> s.define("s".repeat(Schedules.MAX_NAME_LENGTH + 1),
                    Schedule.every(Duration.ofHours(1)), ScheduleOptions.forQueue("reports")));
        }
    }

    @Test
    void the_documented_rules_are_the_enforced_ones() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "schedules.md")).replaceAll("\\s+", " ");
        assertTrue(doc.contains("Names are 1 to " + Schedules.MAX_NAME_LENGTH + " letters, digits, `_`, `.` or `-`,"
                + " kept as written (`Daily` and `daily` are two schedules)"), "docs/schedules.md, schedule names");
        assertTrue(doc.contains("a letter, then letters, digits and `_`, at most " + RowQueues.MAX_NAME_LENGTH
                + " characters, folded to lower case"), "docs/schedules.md, queue names");
    }
}
