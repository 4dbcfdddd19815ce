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
 * @param started  jobs claimed for their first attempt in each minute (retries are not counted: their wait includes
 *                 the earlier attempts)
 * @param waitTotalMillis the sum of those jobs' waits from enqueue to claim, in milliseconds, per minute (a delayed
 *                 job's wait includes its delay)
 * @param waitMaxMillis the longest of those waits, per minute; 0 in a minute without starts
 */
public record QueueActivity(Instant start, List<Long> enqueued, List<Long> finished, List<Long> failed,
                            List<Long> started, List<Long> waitTotalMillis, List<Long> waitMaxMillis) {

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
        started = List.copyOf(started);
        waitTotalMillis = List.copyOf(waitTotalMillis);
        waitMaxMillis = List.copyOf(waitMaxMillis);
        int n = enqueued.size();
        if (finished.size() != n || failed.size() != n || started.size() != n || waitTotalMillis.size() != n
                || waitMaxMillis.size() != n) {
            throw new IllegalArgumentException("the series differ in length: " + enqueued.size() + ", "
                    + finished.size() + ", " + failed.size() + ", " + started.size() + ", " + waitTotalMillis.size()
                    + ", " + waitMaxMillis.size());
        }
    }

    /**
     * Activity without wait figures (no starts counted).
     *
     * @param start    the start of the first minute
     * @param enqueued jobs enqueued in each minute
     * @param finished jobs acked in each minute
     * @param failed   failed attempts in each minute
     */
    public QueueActivity(Instant start, List<Long> enqueued, List<Long> finished, List<Long> failed) {
        this(start, enqueued, finished, failed, zeros(enqueued.size()), zeros(enqueued.size()),
                zeros(enqueued.size()));
    }

    private static List<Long> zeros(int n) {
        return java.util.Collections.nCopies(n, 0L);
    }

    /**
     * @param minute a minute's index, 0 for the oldest
     * @return the mean wait from enqueue to claim of the first attempts claimed in that minute, in milliseconds;
     *         {@code -1} when none was claimed
     */
    public long meanWaitMillis(int minute) {
        long n = started.get(minute);
        return n == 0 ? -1 : waitTotalMillis.get(minute) / n;
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
