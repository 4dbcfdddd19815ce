package dev.rowqueue;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A fixed rate: slots at {@code anchor + k * interval} for every integer k, whatever the time zone and however long
 * each job runs. Create one with {@link Schedule#every(Duration)} (anchored at the epoch, so every process computes
 * the same slots) or {@link Schedule#every(Duration, Instant)}.
 *
 * <pre>{@code
 * Schedule.every(Duration.ofSeconds(10));                                      // :00, :10, :20, ...
 * Schedule.every(Duration.ofHours(24), Instant.parse("2026-01-05T06:00:00Z")); // 06:00 UTC every day
 * }</pre>
 *
 * <p>Unlike a cron expression, a rate knows no calendar and no daylight saving: {@code every(Duration.ofHours(24))}
 * fires every 24 hours of real time, which is 01:00 or 02:00 local time in Berlin depending on the season. Use
 * {@link CronSchedule} for local times of day.
 *
 * <p>The anchor is kept modulo the interval: {@code every(PT10S, 00:00:20Z)} equals {@code every(PT10S)}, and
 * {@link #anchor()} returns the slot in {@code [epoch, epoch + interval)}.
 */
public final class FixedRateSchedule implements Schedule {

    private final Duration interval;
    private final long intervalMillis;
    /** The slots' offset from the epoch, in {@code [0, intervalMillis)}. */
    private final long phaseMillis;

    FixedRateSchedule(Duration interval, Instant anchor) {
        this.interval = ScheduleText.wholeMillis("interval", interval);
        this.intervalMillis = interval.toMillis();
        if (anchor == null) {
            throw new IllegalArgumentException("anchor must not be null");
        }
        if (anchor.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("anchor " + anchor + " has a fraction of a millisecond; schedules"
                    + " count whole milliseconds");
        }
        try {
            this.phaseMillis = Math.floorMod(anchor.toEpochMilli(), intervalMillis);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("anchor " + anchor + " is too far from the epoch", e);
        }
    }

    /** @return the time between two slots */
    public Duration interval() {
        return interval;
    }

    /** @return the first slot at or after the epoch (1970-01-01T00:00:00Z); slots are this plus multiples of the interval */
    public Instant anchor() {
        return Instant.ofEpochMilli(phaseMillis);
    }

    /**
     * @param after an instant
     * @return the first slot strictly after it
     * @throws DateTimeException if it lies beyond the instants java.time supports
     */
    @Override
    public Instant next(Instant after) {
        Objects.requireNonNull(after, "after");
        try {
            long t = after.toEpochMilli(); // floor: a slot (whole milliseconds) is after 'after' iff it is after t
            long k = Math.floorDiv(Math.subtractExact(t, phaseMillis), intervalMillis) + 1;
            return Instant.ofEpochMilli(Math.addExact(phaseMillis, Math.multiplyExact(k, intervalMillis)));
        } catch (ArithmeticException e) {
            throw new DateTimeException("no slot after " + after + " within the instants java.time supports", e);
        }
    }

    /**
     * @param o another object
     * @return whether it is a fixed rate with the same interval and the same slots
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof FixedRateSchedule other && intervalMillis == other.intervalMillis
                && phaseMillis == other.phaseMillis;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(intervalMillis) * 31 + Long.hashCode(phaseMillis);
    }

    /** @return {@code rate:<interval>}, with {@code @<anchor>} unless the slots are aligned to the epoch */
    @Override
    public String toString() {
        return "rate:" + interval + (phaseMillis == 0 ? "" : "@" + anchor());
    }
}
