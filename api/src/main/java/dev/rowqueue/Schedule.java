package dev.rowqueue;

import dev.rowqueue.internal.Validation;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * When a recurring job fires: a cron expression in a time zone, a fixed rate, or a fixed delay after the previous
 * job completed.
 *
 * <pre>{@code
 * Schedule weekdays = Schedule.cron("0 9 * * MON-FRI", ZoneId.of("Europe/Berlin"));
 * Schedule often = Schedule.every(Duration.ofSeconds(10));          // :00, :10, :20, ... of every minute
 * Schedule pause = Schedule.fixedDelay(Duration.ofMinutes(1));      // a minute after each job completed
 * List<Instant> coming = weekdays.next(Instant.now(), 5);          // the next five fire times
 * Schedule same = Schedule.parse(weekdays.toString());             // "cron:0 9 * * MON-FRI@Europe/Berlin"
 * }</pre>
 *
 * <p><b>One string.</b> Every schedule has a canonical text, its {@link #toString()}, that {@link #parse(String)}
 * reads back to an equal schedule: {@code cron:<expression>@<zone>}, {@code rate:<interval>[@<anchor>]} or
 * {@code delay:<delay>}, with ISO-8601 durations and instants ({@code rate:PT10S}, {@code delay:PT1M}). Two schedules
 * are {@linkplain Object#equals(Object) equal} when their canonical forms are, and equal schedules fire at the same
 * instants; the canonical form expands macros, folds names and numbers, and drops a seconds field of 0, so
 * {@code @daily}, {@code 0 0 * * *} and {@code 0 0 0 * * *} are equal.
 *
 * <p>Schedules are immutable and thread-safe. Bad input is refused with an {@link IllegalArgumentException} that
 * names the bad part and says why. The cron syntax, the daylight-saving rule and the difference between fixed rate
 * and fixed delay are described on {@link CronSchedule}, {@link FixedRateSchedule} and {@link FixedDelaySchedule},
 * and in {@code docs/schedules.md}.
 */
public sealed interface Schedule permits CronSchedule, FixedRateSchedule, FixedDelaySchedule {

    /** The most fire times {@link #next(Instant, int)} returns in one call. */
    int MAX_NEXT = 1000;

    /**
     * A cron schedule in UTC.
     *
     * @param expression five fields (minute hour day-of-month month day-of-week), six with a leading seconds field,
     *                   or a macro such as {@code @daily}; see {@link CronSchedule}
     * @return the schedule
     * @throws IllegalArgumentException for an invalid expression, or one that can never fire
     */
    static CronSchedule cron(String expression) {
        return new CronSchedule(expression, java.time.ZoneOffset.UTC);
    }

    /**
     * A cron schedule in a time zone: its fields are read as local date-times of that zone.
     *
     * @param expression the cron expression; see {@link CronSchedule}
     * @param zone       the zone, such as {@code ZoneId.of("Europe/Berlin")}
     * @return the schedule
     * @throws IllegalArgumentException for an invalid expression, or one that can never fire
     */
    static CronSchedule cron(String expression, ZoneId zone) {
        if (zone == null) {
            throw new IllegalArgumentException("time zone must not be null");
        }
        return new CronSchedule(expression, zone);
    }

    /**
     * A cron schedule in a time zone given by its id.
     *
     * @param expression the cron expression; see {@link CronSchedule}
     * @param zone       a region such as {@code Europe/Berlin}, {@code UTC}, or an offset such as {@code +01:00}
     * @return the schedule
     * @throws IllegalArgumentException for an invalid expression or an unknown zone
     */
    static CronSchedule cron(String expression, String zone) {
        return new CronSchedule(expression, Validation.zone(zone));
    }

    /**
     * A fixed rate aligned to the epoch: slots at {@code 1970-01-01T00:00:00Z + k * interval}, so every process
     * computes the same slots ({@code every(Duration.ofMinutes(15))} fires at :00, :15, :30 and :45 of every hour).
     *
     * @param interval a positive whole number of milliseconds
     * @return the schedule
     * @throws IllegalArgumentException for a zero, negative or sub-millisecond interval
     */
    static FixedRateSchedule every(Duration interval) {
        return new FixedRateSchedule(interval, Instant.EPOCH);
    }

    /**
     * A fixed rate with slots at {@code anchor + k * interval} for every integer k (before the anchor too).
     *
     * @param interval a positive whole number of milliseconds
     * @param anchor   one of the slots, in whole milliseconds
     * @return the schedule
     * @throws IllegalArgumentException for a zero, negative or sub-millisecond interval, or a sub-millisecond anchor
     */
    static FixedRateSchedule every(Duration interval, Instant anchor) {
        return new FixedRateSchedule(interval, anchor);
    }

    /**
     * A fixed delay: the next job is due this long after the previous one completed.
     *
     * @param delay a positive whole number of milliseconds
     * @return the schedule
     * @throws IllegalArgumentException for a zero, negative or sub-millisecond delay
     */
    static FixedDelaySchedule fixedDelay(Duration delay) {
        return new FixedDelaySchedule(delay);
    }

    /**
     * Reads a schedule's canonical text ({@link #toString()}) or any text of the same shape:
     * {@code cron:<expression>[@<zone>]} (UTC without a zone), {@code rate:<ISO-8601 duration>[@<ISO-8601 instant>]}
     * or {@code delay:<ISO-8601 duration>}.
     *
     * <pre>{@code
     * Schedule.parse("cron:0 9 * * MON-FRI@Europe/Berlin");
     * Schedule.parse("cron:@hourly");
     * Schedule.parse("rate:PT10S");
     * Schedule.parse("rate:PT24H@2026-01-05T06:00:00Z");
     * Schedule.parse("delay:PT1M");
     * }</pre>
     *
     * @param text the text
     * @return the schedule
     * @throws IllegalArgumentException if the text is not a valid schedule, saying which part is wrong
     */
    static Schedule parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("schedule must not be null");
        }
        int colon = text.indexOf(':');
        String kind = colon < 0 ? "" : text.substring(0, colon).strip().toLowerCase(Locale.ROOT);
        String body = colon < 0 ? "" : text.substring(colon + 1).strip();
        switch (kind) {
            case "cron": {
                int at = body.lastIndexOf('@');
                return at > 0 ? cron(body.substring(0, at), body.substring(at + 1).strip()) : cron(body);
            }
            case "rate": {
                int at = body.indexOf('@');
                Duration interval = ScheduleText.duration("interval", at < 0 ? body : body.substring(0, at));
                return at < 0 ? every(interval) : every(interval, ScheduleText.instant(body.substring(at + 1)));
            }
            case "delay":
                return fixedDelay(ScheduleText.duration("delay", body));
            default:
                throw new IllegalArgumentException("schedule '" + text + "' must start with cron:, rate: or delay:"
                        + " (for example 'cron:0 9 * * MON-FRI@Europe/Berlin', 'rate:PT10S', 'delay:PT1M')");
        }
    }

    /**
     * The first fire time after an instant. For a {@link FixedDelaySchedule}, {@code after} is the instant the
     * previous job completed.
     *
     * @param after an instant; the result is strictly later
     * @return the next fire time
     * @throws DateTimeException if it lies beyond the instants java.time supports
     */
    Instant next(Instant after);

    /**
     * The next {@code n} fire times after an instant, in order: what a console or {@code rowqueue schedule next}
     * shows. For a {@link FixedDelaySchedule} this assumes that each job completes the moment it is due.
     *
     * @param after an instant; the first result is strictly later
     * @param n     1 to {@value #MAX_NEXT}
     * @return {@code n} increasing instants
     * @throws IllegalArgumentException for {@code n} out of range
     */
    default List<Instant> next(Instant after, int n) {
        Objects.requireNonNull(after, "after");
        if (n < 1 || n > MAX_NEXT) {
            throw new IllegalArgumentException("n must be 1 to " + MAX_NEXT + ", got " + n);
        }
        List<Instant> out = new ArrayList<>(n);
        Instant t = after;
        for (int i = 0; i < n; i++) {
            t = next(t);
            out.add(t);
        }
        return List.copyOf(out);
    }

    /**
     * The canonical text, which {@link #parse(String)} reads back to an equal schedule.
     *
     * @return for example {@code cron:0 9 * * MON-FRI@Europe/Berlin}, {@code rate:PT10S} or {@code delay:PT1M}
     */
    @Override
    String toString();
}
