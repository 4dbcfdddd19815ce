package dev.rowqueue.console;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A work queue's recent activity, one count per minute, oldest minute first: what the overview's sparkline draws.
 *
 * @param start    the start of the first minute
 * @param enqueued jobs enqueued in each minute
 * @param finished jobs acked in each minute
 * @param failed   failed attempts in each minute
 */
public record Activity(Instant start, List<Long> enqueued, List<Long> finished, List<Long> failed) {
    /** Validates and copies the series, which must be of one length. */
    public Activity {
        Objects.requireNonNull(start, "start");
        enqueued = List.copyOf(enqueued);
        finished = List.copyOf(finished);
        failed = List.copyOf(failed);
        if (enqueued.size() != finished.size() || finished.size() != failed.size()) {
            throw new IllegalArgumentException("the series differ in length: " + enqueued.size() + ", "
                    + finished.size() + ", " + failed.size());
        }
    }
}
