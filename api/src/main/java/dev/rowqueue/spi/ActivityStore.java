package dev.rowqueue.spi;

import java.util.List;

/**
 * The activity table's database work ({@link Schema#activity()}), made by {@link Dialect#activityStore()}: the
 * statements that write work queues' counts per minute and read them back. The core composes a flush of
 * {@link #insert} and, now and then, {@link #deleteBefore} in one transaction, on its connection.
 */
public interface ActivityStore {

    /**
     * A work queue's counts of one minute: one flush's, or the sums of all flushes when read.
     *
     * @param queue     the work queue
     * @param minuteMs  the minute's start, epoch milliseconds
     * @param enqueued  jobs enqueued
     * @param finished  jobs finished
     * @param failed    jobs failed
     * @param started   first attempts claimed
     * @param waitSumMs the sum of their waits from enqueue, in milliseconds
     * @param waitMaxMs the longest of those waits, in milliseconds
     */
    record Minute(String queue, long minuteMs, long enqueued, long finished, long failed, long started,
                  long waitSumMs, long waitMaxMs) {
    }

    /**
     * Writes one flush's rows in one batch; a step of the flush's transaction.
     *
     * @param minutes the rows, at least one
     * @param flushId the flush's random id, which keeps its rows apart from other flushes'
     * @return nothing
     */
    SqlOp<Void> insert(List<Minute> minutes, long flushId);

    /**
     * Deletes the rows of minutes before a time; a step of a flush's transaction.
     *
     * @param beforeMs the oldest minute kept, epoch milliseconds
     * @return nothing
     */
    SqlOp<Void> deleteBefore(long beforeMs);

    /**
     * @param queue   a work queue
     * @param sinceMs the first minute, epoch milliseconds
     * @return per minute from {@code sinceMs} on that has rows, the sums of its flushes (the longest wait: their
     *         maximum), in any order (a read)
     */
    SqlOp<List<Minute>> read(String queue, long sinceMs);
}
