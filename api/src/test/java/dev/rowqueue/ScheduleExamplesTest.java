package dev.rowqueue;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The code blocks of README.md ("The API by example") and docs/schedules.md ("Recurring jobs"), as written. */
class ScheduleExamplesTest {

    private static JdbcDataSource h2(String name) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Test
    void the_readme_example_runs() {
        try (RowQueues rq = RowQueues.builder(h2("readme_schedules")).build()) {
            rq.workQueue("outgoing_mail", WorkQueueOptions.defaults().withMaxAttempts(3)).create();
            // --- as in README.md
            rq.schedules().define("nightly_mail", "0 2 * * *",         // cron, fixed rate or fixed delay, in a time zone
                    ScheduleOptions.forQueue("outgoing_mail").withZone("Europe/Berlin").withPayload("digest of {slot}"));
            List<Instant> slots = rq.schedules().next("nightly_mail", 3); // pause, resume, triggerNow, delete, list too
            rq.schedules().startScheduler();                          // defining fires nothing: this starts firing in this process
            // ---
            assertEquals(3, slots.size());
            assertEquals(2, slots.get(0).atZone(java.time.ZoneId.of("Europe/Berlin")).getHour());
        }
    }

    @Test
    void the_docs_example_runs() {
        javax.sql.DataSource dataSource = h2("docs_schedules");
        // --- as in docs/schedules.md
        RowQueues rq = RowQueues.builder(dataSource).build();
        rq.workQueue("reports").create();                               // the target queue must exist
        Schedules schedules = rq.schedules();                           // creates the tables; fires nothing yet
        schedules.define("daily-report", "0 9 * * MON-FRI",              // 09:00 Berlin time, Monday to Friday
                ScheduleOptions.forQueue("reports").withZone("Europe/Berlin")
                        .withPayload("{\"report\":\"daily\",\"slot\":\"{slot}\"}")
                        .withMissed(MissedSlots.each(3)));
        schedules.define("sweep", Schedule.fixedDelay(Duration.ofMinutes(1)), ScheduleOptions.forQueue("reports"));
        List<Instant> coming = schedules.next("daily-report", 5);      // from the stored next slot on
        schedules.pause("daily-report"); schedules.resume("daily-report");
        long id = schedules.triggerNow("sweep");                        // one job now; the slots do not move
        schedules.list(); schedules.get("sweep"); schedules.delete("sweep");
        schedules.startScheduler();                                     // from now on this process fires due schedules
schedules.startScheduler();                                     // from now on this process fires due schedules
        // ---
        assertEquals(5, coming.size());
        assertTrue(id > 0);
        assertEquals(List.of("daily-report"), schedules.list().stream().map(ScheduleInfo::name).toList());
        assertEquals(1, rq.workQueue("reports").stats().total());
        rq.close();
    }
}
