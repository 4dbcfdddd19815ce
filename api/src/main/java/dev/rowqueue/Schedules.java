package dev.rowqueue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Recurring jobs: named schedules, stored in the database, that enqueue one job into a work queue at each slot.
 * Get it from {@link RowQueues#schedules()}.
 *
 * <pre>{@code
 * rq.workQueue("reports").create();                         // the target queue must exist
 * Schedules schedules = rq.schedules();                      // defines and lists; fires nothing yet
 * schedules.define("daily-report", "0 9 * * MON-FRI",
 *         ScheduleOptions.forQueue("reports").withZone("Europe/Berlin"));
 * schedules.define("sweep", Schedule.fixedDelay(Duration.ofMinutes(1)), ScheduleOptions.forQueue("reports"));
 * List<Instant> coming = schedules.next("daily-report", 5);
 * schedules.startScheduler();                               // this process fires due schedules from now on
 * }</pre>
 *
 * <p>Defining, listing, pausing and deleting schedules fire nothing in this process: a process fires due schedules
 * only after it called {@link #startScheduler()}. Every process that did fires the due schedules of the whole
 * database; there is exactly one job per (schedule, slot) however many do, which the database enforces with a primary
 * key. Slots are taken from the database's clock. See {@code docs/schedules.md}.
 *
 * <p>Names are 1 to {@value #MAX_NAME_LENGTH} characters of letters, digits, {@code _ . -}. Bad input (an invalid
 * cron expression, a zero or negative interval, an unknown zone) is refused with an {@link IllegalArgumentException}
 * before any SQL runs; an unknown queue after one read of the catalog, with nothing written.
 */
public interface Schedules {

    /** The longest schedule name. */
    int MAX_NAME_LENGTH = 64;

    /**
     * Starts this process's scheduler thread, which fires the due schedules of the whole database (those other
     * processes defined too) until the {@code RowQueues} closes; one statement per poll when nothing is due (see
     * {@link RowQueues.Builder#schedulerPollInterval(java.time.Duration)}). Nothing else on this interface starts it:
     * a process that only defines schedules fires none. Calling it again does nothing.
     *
     * @return this
     * @throws IllegalStateException if the {@code RowQueues} was built with {@code scheduler(false)}, or is closed
     */
    Schedules startScheduler();

    /**
     * Defines a schedule, or does nothing if one of that name exists with the same definition.
     *
     * @param name     the schedule's name
     * @param schedule when it fires
     * @param options  what it enqueues where
     * @return the stored schedule
     * @throws ScheduleConflictException if the name exists with another definition
     * @throws IllegalArgumentException  for bad input or an unknown queue
     */
    ScheduleInfo define(String name, Schedule schedule, ScheduleOptions options);

    /**
     * Defines a schedule from text: a cron expression (in {@link ScheduleOptions#zone()}), or a schedule's text such
     * as {@code rate:PT10S}, {@code delay:PT1M} or {@code cron:0 9 * * *@Europe/Berlin}.
     *
     * @param name    the schedule's name
     * @param spec    the cron expression or schedule text
     * @param options what it enqueues where
     * @return the stored schedule
     * @throws ScheduleConflictException if the name exists with another definition
     * @throws IllegalArgumentException  for bad input or an unknown queue
     */
    ScheduleInfo define(String name, String spec, ScheduleOptions options);

    /**
     * Defines a schedule, replacing any definition of that name. A changed schedule's next slot is computed anew;
     * an unchanged one keeps it.
     *
     * @param name     the schedule's name
     * @param schedule when it fires
     * @param options  what it enqueues where
     * @return the stored schedule
     */
    ScheduleInfo replace(String name, Schedule schedule, ScheduleOptions options);

    /**
     * {@link #replace(String, Schedule, ScheduleOptions)} with a schedule given as text, as
     * {@link #define(String, String, ScheduleOptions)} reads it.
     *
     * @param name    the schedule's name
     * @param spec    the cron expression or schedule text
     * @param options what it enqueues where
     * @return the stored schedule
     */
    ScheduleInfo replace(String name, String spec, ScheduleOptions options);

    /**
     * @param name a schedule
     * @return {@code false} if there is none of that name
     */
    boolean pause(String name);

    /**
     * Resumes a paused schedule; the slots that went by while it was paused are missed slots.
     *
     * @param name a schedule
     * @return {@code false} if there is none of that name
     */
    boolean resume(String name);

    /**
     * Enqueues the schedule's job now, for a slot of the database's current time, without changing its slots.
     *
     * @param name a schedule
     * @return the job's id
     * @throws java.util.NoSuchElementException if there is no schedule of that name
     */
    long triggerNow(String name);

    /**
     * Deletes a schedule; the jobs it enqueued stay.
     *
     * @param name a schedule
     * @return {@code false} if there was none
     */
    boolean delete(String name);

    /** @return every schedule, in name order */
    List<ScheduleInfo> list();

    /**
     * @param name a schedule
     * @return it, if it exists
     */
    Optional<ScheduleInfo> get(String name);

    /**
     * The next fire times from its stored next slot on (that slot first).
     *
     * @param name a schedule
     * @param n    1 to {@value Schedule#MAX_NEXT}
     * @return {@code n} increasing instants
     * @throws java.util.NoSuchElementException if there is no schedule of that name
     */
    List<Instant> next(String name, int n);

    /**
     * When each schedule last fired: the newest slot that got its job, by when that job was enqueued (one statement
     * for all; {@link #triggerNow} is not a slot and does not count). Fired slots are kept a day, and the newest of
     * each schedule as long as it exists.
     *
     * @return the time of the last fire per schedule name; schedules that never fired are absent
     */
    java.util.Map<String, Instant> lastFires();
}
