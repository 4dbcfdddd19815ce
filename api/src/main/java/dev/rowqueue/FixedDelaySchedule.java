package dev.rowqueue;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A fixed delay: the next job is due a fixed time after the previous one <em>completed</em>, so jobs never overlap
 * and a slow job pushes the next one back. Create one with {@link Schedule#fixedDelay(Duration)}.
 *
 * <pre>{@code
 * FixedDelaySchedule sweep = Schedule.fixedDelay(Duration.ofMinutes(1));
 * Instant due = sweep.nextAfterCompletion(completedAt);   // completedAt + 1 minute
 * }</pre>
 *
 * <p>Its slots depend on when jobs complete, which only the runtime knows: {@link #next(Instant)} takes the
 * completion instant, and {@link #next(Instant, int)} assumes that every job completes the moment it is due.
 */
public final class FixedDelaySchedule implements Schedule {

    private final Duration delay;

    FixedDelaySchedule(Duration delay) {
        this.delay = ScheduleText.wholeMillis("delay", delay);
    }

    /** @return the time from a job's completion to the next job's slot */
    public Duration delay() {
        return delay;
    }

    /**
     * @param completedAt when the previous job completed
     * @return {@code completedAt + delay}
     * @throws DateTimeException if it lies beyond the instants java.time supports
     */
    public Instant nextAfterCompletion(Instant completedAt) {
        Objects.requireNonNull(completedAt, "completedAt");
        try {
            return completedAt.plus(delay);
        } catch (ArithmeticException e) {
            throw new DateTimeException("no slot after " + completedAt + " within the instants java.time supports", e);
        }
    }

    /**
     * Same as {@link #nextAfterCompletion(Instant)}.
     *
     * @param after when the previous job completed
     * @return {@code after + delay}
     */
    @Override
    public Instant next(Instant after) {
        return nextAfterCompletion(after);
    }

    /**
     * @param o another object
     * @return whether it is a fixed delay of the same length
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof FixedDelaySchedule other && delay.equals(other.delay);
    }

    @Override
    public int hashCode() {
        return delay.hashCode();
    }

    /** @return {@code delay:<delay>}, such as {@code delay:PT1M} */
    @Override
    public String toString() {
        return "delay:" + delay;
    }
}
