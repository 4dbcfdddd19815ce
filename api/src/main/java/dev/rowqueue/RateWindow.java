package dev.rowqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A rate-limited work queue's window as the database holds it ({@link WorkQueue#rateWindow()}): the limit the claims
 * that last started jobs enforced, and the starts it counts. Every consumer of a queue should use one limit; where
 * they differ, this is the last claimer's.
 *
 * @param limit     the most jobs started in any window
 * @param window    the window
 * @param started   jobs started within the last {@code window}, by the database's clock when read (0 to
 *                  {@code limit}; a claim in flight may add more as soon as this returns)
 * @param total     jobs the limit has let start since the queue's first rate-limited claim
 * @param lastStart the lease start of the latest job started, as the database wrote it
 */
public record RateWindow(int limit, Duration window, int started, long total, Instant lastStart) {

    /**
     * @throws IllegalArgumentException for a limit below 1, a non-positive window, or negative counts
     * @throws NullPointerException     if {@code window} or {@code lastStart} is null
     */
    public RateWindow {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(lastStart, "lastStart");
        if (limit < 1 || window.isNegative() || window.isZero() || started < 0 || total < started) {
            throw new IllegalArgumentException("not a rate window: " + limit + " per " + window + ", " + started
                    + " started in it, " + total + " ever");
        }
    }

    /** @return how many more jobs may start before the window is full ({@code limit - started}, at least 0) */
    public int remaining() {
        return Math.max(0, limit - started);
    }
}
