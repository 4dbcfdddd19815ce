package dev.rowqueue;

import dev.rowqueue.internal.CronSpec;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;

/**
 * A cron expression in a time zone. Create one with {@link Schedule#cron(String, ZoneId)}.
 *
 * <pre>{@code
 * Schedule.cron("@hourly");                                       // minute 0 of every hour, UTC
 * Schedule.cron("0 9 * * MON-FRI", ZoneId.of("Europe/Berlin"));   // 09:00 Berlin time on weekdays
 * Schedule.cron("30 0 2 1 * *", "America/New_York");            // 02:00:30 on the 1st of each month
 * Schedule.cron("@daily");                                       // midnight UTC
 * }</pre>
 *
 * <h2>Syntax</h2>
 * Five fields separated by blanks: minute (0-59), hour (0-23), day-of-month (1-31), month (1-12 or JAN-DEC) and
 * day-of-week (0-7 or SUN-SAT; 0 and 7 are Sunday); or six, with a seconds field (0-59) first. Each field is
 * {@code *}, a value, a range {@code a-b}, a step {@code *}{@code /n}, {@code a-b/n} or {@code a/n} (from a to the
 * field's end), or a comma-separated list of these. Names are case-insensitive. Ranges do not wrap around
 * ({@code FRI-MON} is refused), except that {@code SUN} ending a range means 7 ({@code MON-SUN} is the whole
 * week). The macros are
 * {@code @yearly} and {@code @annually} ({@code 0 0 1 1 *}), {@code @monthly} ({@code 0 0 1 * *}), {@code @weekly}
 * ({@code 0 0 * * 0}), {@code @daily} and {@code @midnight} ({@code 0 0 * * *}) and {@code @hourly}
 * ({@code 0 * * * *}); {@code @reboot} is refused, since it names no instant.
 *
 * <h2>Day-of-month and day-of-week</h2>
 * As in Vixie cron (and cronie, and the cron of most Linux distributions): when both fields are restricted, a day
 * matches if <em>either</em> field matches ({@code 0 0 1,15 * MON} fires on the 1st, the 15th and every Monday). A
 * field is unrestricted when it starts with {@code *} (or is {@code ?}); then a day must match both, which is the
 * other field alone when the unrestricted one is {@code *}. Like Vixie cron this looks at the first character, so
 * {@code 0 0 *}{@code /2 * MON} fires on Mondays that fall on odd days, while {@code 0 0 1-31/2 * MON} fires on odd
 * days and on Mondays.
 *
 * <h2>Quartz forms</h2>
 * Accepted, each alone in its field: {@code ?} (no specific value, as {@code *}) in day-of-month or day-of-week;
 * in day-of-month {@code L} (the last day of the month), {@code L-n} (n days before the last), {@code LW} (the last
 * weekday, Monday to Friday) and {@code nW} (the weekday nearest the n-th, never leaving the month: a Saturday 1st
 * moves to Monday the 3rd, a Sunday at the month's end to the Friday before; months without an n-th day do not
 * fire); in day-of-week {@code FRIL} (the last Friday of the month) and {@code FRI#3} (the third Friday; 1-5, months
 * without a fifth do not fire). The day-of-month / day-of-week rule above applies to them too. Quartz numbers days
 * of week from 1 = Sunday where cron numbers them from 0 = Sunday, so an expression that uses any Quartz form must
 * name its days of week ({@code MON-FRI}, not {@code 2-6} or {@code 1-5}). Quartz's seven-field form (a year field)
 * is refused.
 *
 * <h2>Daylight saving</h2>
 * The fields are local date-times of the schedule's zone. Where the zone's offset changes:
 * <ul>
 *   <li><b>Fixed-time schedules</b> (neither the minute nor the hour field starts with {@code *}, such as
 *       {@code 0 2 * * *} or {@code 30 1-3 * * *}) fire once for every matching local date-time. A local time that
 *       the clocks skip (spring forward) fires once, at the first instant after the gap: in Europe/Berlin,
 *       {@code 30 2 * * *} fires at 03:00 CEST on the last Sunday of March, and several skipped matches fire
 *       together, once. A local time that occurs twice (fall back) fires at its first occurrence only: 02:30 CEST,
 *       not 02:30 CET as well.</li>
 *   <li><b>Wildcard schedules</b> (the minute or hour field starts with {@code *}, such as {@code *}{@code /15 * * * *}
 *       or {@code 0 * * * *}) follow the clock as it runs: they fire at each matching local time that occurs, so an
 *       hour repeated by a fall-back fires again, and times skipped by a spring-forward do not fire (nothing was
 *       missed: {@code 0 * * * *} still fires once an hour).</li>
 * </ul>
 * This is the rule of Vixie cron and cronie. A zone without offset changes (UTC, a fixed offset) is not affected.
 *
 * <h2>Equality</h2>
 * Two cron schedules are equal when their canonical expressions and their zones' rules are equal (links such as
 * {@code US/Eastern} and {@code America/New_York} are equal); equal schedules fire at the same instants.
 */
public final class CronSchedule implements Schedule {

    private final CronSpec spec;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final String expression;

    CronSchedule(String expression, ZoneId zone) {
        this.spec = CronSpec.parse(expression);
        this.zone = zone.normalized();
        this.rules = this.zone.getRules();
        this.expression = spec.canonical(!rules.isFixedOffset());
    }

    /**
     * The canonical expression: macros expanded, months and days of week by name, the seconds field only when it
     * is not just 0, and the same {@code *}-prefixes where they change what fires (see the class comment).
     *
     * @return for example {@code 0 9 * * MON-FRI}
     */
    public String expression() {
        return expression;
    }

    /**
     * @return the zone the fields are read in (normalized: {@code UTC}, {@code Etc/UTC} and {@code +00:00} are
     *         {@link ZoneOffset#UTC})
     */
    public ZoneId zone() {
        return zone;
    }

    /**
     * The first fire time strictly after an instant, found field by field (a yearly schedule costs a few steps, not
     * a scan), with the daylight-saving rule of the class comment.
     *
     * @param after an instant
     * @return the next fire time, a whole second
     * @throws DateTimeException if it lies beyond the years java.time supports
     */
    @Override
    public Instant next(Instant after) {
        Objects.requireNonNull(after, "after");
        Instant start = Instant.ofEpochSecond(Math.addExact(after.getEpochSecond(), 1));
        if (rules.isFixedOffset()) {
            ZoneOffset offset = rules.getOffset(start);
            return found(spec.nextLocal(LocalDateTime.ofEpochSecond(start.getEpochSecond(), 0, offset)), after)
                    .toInstant(offset);
        }
        boolean wildcard = spec.wildcard();
        LocalDateTime searchedFrom = null;
        LocalDateTime match = null;
        // walk the spans of constant offset from 'start'; within one, local time and instants run together
        for (Instant s = start; ; ) {
            ZoneOffset offset = rules.getOffset(s);
            ZoneOffsetTransition end = rules.nextTransition(s);
            LocalDateTime from = LocalDateTime.ofEpochSecond(s.getEpochSecond(), 0, offset);
            if (!wildcard) {
                ZoneOffsetTransition previous = rules.previousTransition(s.plusSeconds(1));
                if (previous != null && previous.isOverlap() && from.isBefore(previous.getDateTimeBefore())) {
                    from = previous.getDateTimeBefore(); // these local times occurred already, before the fall-back
                }
            }
            if (match == null || from.isBefore(searchedFrom) || from.isAfter(match)) {
                searchedFrom = from;
                match = found(spec.nextLocal(from), after);
            }
            if (end == null || match.isBefore(end.getDateTimeBefore())) {
                return match.toInstant(offset);
            }
            if (!wildcard && end.isGap() && match.isBefore(end.getDateTimeAfter())) {
                return end.getInstant(); // skipped local times fire once, at the first instant after the gap
            }
            s = end.getInstant();
        }
    }

    private static LocalDateTime found(LocalDateTime match, Instant after) {
        if (match == null) {
            throw new DateTimeException("no fire time after " + after + " within the years java.time supports");
        }
        return match;
    }

    /**
     * @param o another object
     * @return whether it is a cron schedule with the same canonical expression in a zone with the same rules
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof CronSchedule other && expression.equals(other.expression) && rules.equals(other.rules);
    }

    @Override
    public int hashCode() {
        return expression.hashCode() * 31 + rules.hashCode();
    }

    /** @return {@code cron:<canonical expression>@<zone>}, such as {@code cron:0 9 * * MON-FRI@Europe/Berlin} */
    @Override
    public String toString() {
        return "cron:" + expression + "@" + (zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId());
    }
}
