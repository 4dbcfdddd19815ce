package dev.rowqueue;

import java.time.Instant;

/**
 * A schedule as the database stores it.
 *
 * @param name      its name
 * @param schedule  when it fires
 * @param options   what it enqueues where
 * @param paused    whether it is paused
 * @param nextFire  its next slot (for a fixed delay whose job is still running: when the scheduler looks again)
 * @param waitingFor for a fixed delay, the id of the job it waits for, or {@code -1}
 * @param revision  bumped by every change of the row (definition, pause, fire)
 * @param created   when it was first defined, by the database's clock
 */
public record ScheduleInfo(String name, Schedule schedule, ScheduleOptions options, boolean paused, Instant nextFire,
                           long waitingFor, long revision, Instant created) {
}
