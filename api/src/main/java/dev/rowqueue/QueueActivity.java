package dev.rowqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A work queue's activity over the last hour, per minute, oldest minute first ({@link WorkQueue#activity()}): what
 * every process recording activity on the database counted ({@link RowQueues.Builder#recordActivity(boolean)}).
 * Each process keeps its counts in memory and writes them once a minute, so other processes' counts of the last
 * minute or so may be missing; the calling process's own are always included.
 *
 * @param start    the start of the first minute (UTC minute boundary)
 * @param enqueued jobs enqueued in each minute
 * @param finished jobs acked in each minute
 * @param failed   failed attempts (nacks, and jobs made dead after expired leases) in each minute
 */
public record QueueActivity(Instant start, List<Long> enqueued, List<Long> finished, List<Long> failed) {

    /** How many minutes the activity covers. */
    public static final int MINUTES = 60;
    /** One bucket. */
    public static final Duration MINUTE = Duration.ofMinutes(1);

    /** Validates and copies the series, which must be of one length. */
    public QueueActivity {
        Objects.requireNonNull(start, "start");
        enqueued = List.copyOf(enqueued);
        finished = List.copyOf(finished);
        failed = List.copyOf(failed);
        if (enqueued.size() != finished.size() || finished.size() != failed.size()) {
            throw new IllegalArgumentException("the series differ in length: " + enqueued.size() + ", "
                    + finished.size() + ", " + failed.size());
        }
    }

    /** @return jobs enqueued in the whole period */
    public long totalEnqueued() {
        return enqueued.stream().mapToLong(Long::longValue).sum();
    }

    /** @return jobs acked in the whole period */
    public long totalFinished() {
        return finished.stream().mapToLong(Long::longValue).sum();
    }

    /** @return failed attempts in the whole period */
    public long totalFailed() {
        return failed.stream().mapToLong(Long::longValue).sum();
    }
}
