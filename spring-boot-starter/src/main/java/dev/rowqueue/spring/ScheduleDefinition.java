package dev.rowqueue.spring;

import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleOptions;

import java.util.Objects;

/**
 * A schedule (recurring job) declared as a bean: the starter defines it at startup, creating its work queue with the
 * configured options if needed, and runs the scheduler (see {@link RowQueueSchedules}).
 *
 * <pre>{@code
 * @Bean
 * ScheduleDefinition nightlyReport() {
 *     return ScheduleDefinition.of("nightly-report", "0 2 * * *",
 *             ScheduleOptions.forQueue("reports").withZone("Europe/Berlin"));
 * }
 * }</pre>
 *
 * @param name     the schedule's name
 * @param spec     a cron expression (in the options' zone), or a schedule's text ({@code rate:PT10S},
 *                 {@code delay:PT1M}, {@code cron:0 9 * * *@Europe/Berlin})
 * @param options  what it enqueues where
 * @param replace  whether a stored definition that differs is replaced; otherwise startup fails with a
 *                 {@link dev.rowqueue.ScheduleConflictException}
 */
public record ScheduleDefinition(String name, String spec, ScheduleOptions options, boolean replace) {

    /** Validates. */
    public ScheduleDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(options, "options");
    }

    /**
     * @param name    the schedule's name
     * @param spec    a cron expression or a schedule's text
     * @param options what it enqueues where
     * @return a definition that does not replace a different stored one
     */
    public static ScheduleDefinition of(String name, String spec, ScheduleOptions options) {
        return new ScheduleDefinition(name, spec, options, false);
    }

    /**
     * @param name     the schedule's name
     * @param schedule when it fires
     * @param options  what it enqueues where
     * @return a definition that does not replace a different stored one
     */
    public static ScheduleDefinition of(String name, Schedule schedule, ScheduleOptions options) {
        return new ScheduleDefinition(name, schedule.toString(), options, false);
    }

    /** @return a copy that replaces a stored definition that differs */
    public ScheduleDefinition replacing() {
        return new ScheduleDefinition(name, spec, options, true);
    }
}
