package dev.rowqueue;

import java.time.Duration;
import java.time.Instant;

/**
 * Told what this process's scheduler did, after each transaction committed; {@code rowqueue-micrometer} counts it.
 * Called on the scheduler thread: return quickly, and do not throw (a thrown exception is logged and ignored).
 */
public interface ScheduleListener {

    /**
     * A slot got its job on time (within twice the scheduler's poll interval, at least a second).
     *
     * @param schedule the schedule's name
     * @param slot     the slot
     * @param jobId    the job's id
     * @param lag      from the slot to the enqueue, by the database's clock
     */
    default void fired(String schedule, Instant slot, long jobId, Duration lag) {
    }

    /**
     * A slot got its job late: a missed slot caught up by {@link MissedSlots#ONCE} or {@link MissedSlots#each}, or a
     * slot reached later than the on-time bound.
     *
     * @param schedule the schedule's name
     * @param slot     the slot
     * @param jobId    the job's id
     * @param lag      from the slot to the enqueue
     */
    default void late(String schedule, Instant slot, long jobId, Duration lag) {
    }

    /**
     * Slots that got no job of their own, under the schedule's missed-slot policy.
     *
     * @param schedule the schedule's name
     * @param first    the earliest of them
     * @param last     the latest of them
     * @param count    how many
     */
    default void missed(String schedule, Instant first, Instant last, long count) {
    }
}
