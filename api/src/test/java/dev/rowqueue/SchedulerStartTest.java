package dev.rowqueue;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that only defines schedules fires none: the scheduler runs only after {@link Schedules#startScheduler()}
 * (issue 37, part 4).
 */
class SchedulerStartTest {

    private static JdbcDataSource h2(String name) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    private static boolean schedulerThreadRunning() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("rowqueue-scheduler") && t.isAlive());
    }

    @Test
    void defining_schedules_fires_nothing_until_start_scheduler() throws Exception {
        try (RowQueues rq = RowQueues.builder(h2("scheduler_start")).schedulerPollInterval(Duration.ofMillis(10))
                .build()) {
            WorkQueue ticks = rq.workQueue("ticks").create();
            Schedules schedules = rq.schedules();
            schedules.define("tick", Schedule.every(Duration.ofMillis(20)), ScheduleOptions.forQueue("ticks"));
            schedules.list();
            schedules.next("tick", 3);
            rq.schedules();
            assertFalse(schedulerThreadRunning(), "defining and listing started a scheduler thread");
            Thread.sleep(300); // 15 slots and 30 polls' worth: a scheduler would have fired
            assertEquals(0, ticks.stats().total(), "a process that only defines schedules fired one");

            assertTrue(schedules.startScheduler() == schedules);
            schedules.startScheduler(); // a second call does nothing
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (ticks.stats().total() == 0) {
                assertTrue(System.nanoTime() < deadline, "the started scheduler fired nothing in 30 s");
                Thread.sleep(10);
            }
            assertEquals(1, Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("rowqueue-scheduler") && t.isAlive()).count());
        }
    }

    @Test
    void an_instance_built_without_scheduler_refuses_to_start_one() {
        try (RowQueues rq = RowQueues.builder(h2("scheduler_refused")).scheduler(false).build()) {
            Schedules schedules = rq.schedules();
            IllegalStateException e = assertThrows(IllegalStateException.class, schedules::startScheduler);
            assertTrue(e.getMessage().contains("scheduler(false)"), e.getMessage());
        }
    }
}
