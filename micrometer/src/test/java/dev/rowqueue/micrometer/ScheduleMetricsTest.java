package dev.rowqueue.micrometer;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** rowqueue.schedule.slots and rowqueue.schedule.lag from a scheduler on H2. */
class ScheduleMetricsTest {

    @Test
    void slots_fired_late_and_missed_are_counted_and_the_lag_recorded() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        javax.sql.DataSource ds = Databases.h2();
        try (RowQueues definer = RowQueues.builder(ds).scheduler(false).build()) {
            definer.workQueue("ticks").create();
            definer.schedules().define("tick", Schedule.every(Duration.ofMillis(100)),
                    ScheduleOptions.forQueue("ticks").withMissed(MissedSlots.SKIP));
            Thread.sleep(700); // slots go by with no scheduler: missed
            try (RowQueues rq = RowQueues.builder(ds).schedulerPollInterval(Duration.ofMillis(20))
                    .scheduleListener(metrics).build()) {
                rq.schedules().startScheduler();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (count(registry, "fired") + count(registry, "late") < 5 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
        }
        assertThat(count(registry, "missed")).as("SKIP: the slots that went by").isGreaterThanOrEqualTo(3);
        assertThat(count(registry, "fired") + count(registry, "late")).isGreaterThanOrEqualTo(5);
        assertThat(registry.get(RowQueueMetrics.SCHEDULE_LAG).tag("schedule", "tick").timer().count())
                .isEqualTo((long) (count(registry, "fired") + count(registry, "late")));
    }

    private static double count(SimpleMeterRegistry registry, String outcome) {
        var c = registry.find(RowQueueMetrics.SCHEDULE_SLOTS).tag("schedule", "tick").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }
}
