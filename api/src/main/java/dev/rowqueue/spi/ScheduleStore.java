package dev.rowqueue.spi;

import java.util.List;
import java.util.Map;

/**
 * The schedule tables' database work ({@link Schema#schedules()}, {@link Schema#scheduleSlots()}), made by
 * {@link Dialect#scheduleStore()}: every statement the schedules API and the scheduler run, so that a dialect can tune
 * them in one place. Arguments are already validated, and definitions are stored as text (a schedule's canonical
 * form, templates, the missed-slots policy): reading them back is the core's.
 *
 * <p>A fire is one transaction the core composes of {@link #claimSlot}, the enqueue of its jobs (the work queue's
 * {@link WorkStore}), {@link #advance} and now and then {@link #prune}: those operations are run inside it, on its
 * connection.
 */
public interface ScheduleStore {

    /**
     * A schedule's row.
     *
     * @param name      the schedule's name
     * @param spec      the schedule's canonical text
     * @param queue     the work queue its jobs go to
     * @param payload   the payload template
     * @param key       the job key template, or {@code null}
     * @param missed    the missed-slots policy's text
     * @param paused    whether it is paused
     * @param nextMs    its next slot, epoch milliseconds
     * @param lastJob   the job a fixed delay awaits, or -1
     * @param revision  bumped by every change
     * @param createdMs when it was defined, epoch milliseconds
     */
    record Row(String name, String spec, String queue, String payload, String key, String missed, boolean paused,
               long nextMs, long lastJob, long revision, long createdMs) {
    }

    /**
     * A due schedule, as a poll read it.
     *
     * @param name     the schedule's name
     * @param spec     the schedule's canonical text
     * @param queue    the work queue its jobs go to
     * @param payload  the payload template
     * @param key      the job key template, or {@code null}
     * @param missed   the missed-slots policy's text
     * @param nextMs   its next slot, epoch milliseconds, not after {@code nowMs}
     * @param lastJob  the job a fixed delay awaits, or -1
     * @param revision its revision, for {@link #advance}
     * @param nowMs    the time the poll compared with: the database's clock, or the dialect's where it binds
     *                 {@code :now}
     */
    record Due(String name, String spec, String queue, String payload, String key, String missed, long nextMs,
               long lastJob, long revision, long nowMs) {
    }

    /**
     * What a schedule's definition stores.
     *
     * @param spec    the schedule's canonical text
     * @param queue   the work queue its jobs go to
     * @param payload the payload template
     * @param key     the job key template, or {@code null}
     * @param missed  the missed-slots policy's text
     */
    record Definition(String spec, String queue, String payload, String key, String missed) {
    }

    /** @return the schedules not paused whose next slot is not after now, in any order (a read) */
    SqlOp<List<Due>> due();

    /**
     * Reads the database's clock; called only where the dialect's time is an SQL expression
     * ({@link Dialect#nowMillis()} other than {@code :now}).
     *
     * @return the database's current time in epoch milliseconds (a read)
     */
    SqlOp<Long> now();

    /**
     * @param name       the schedule
     * @param definition its definition
     * @param nextMs     its first slot
     * @param createdMs  the time of the definition
     * @return whether the row was inserted; {@code false} if a schedule of that name exists (a single statement)
     */
    SqlOp<Boolean> insert(String name, Definition definition, long nextMs, long createdMs);

    /**
     * Changes a definition, keeping its next slot, and bumps the revision.
     *
     * @param name       the schedule
     * @param definition its new definition
     * @return whether a row was changed (a single statement)
     */
    SqlOp<Boolean> update(String name, Definition definition);

    /**
     * Changes a definition, sets its next slot, forgets the job a fixed delay awaited, and bumps the revision.
     *
     * @param name       the schedule
     * @param definition its new definition
     * @param nextMs     its new next slot
     * @return whether a row was changed (a single statement)
     */
    SqlOp<Boolean> update(String name, Definition definition, long nextMs);

    /**
     * @param name   the schedule
     * @param paused whether to pause it or resume it; the revision is bumped either way
     * @return whether the schedule exists (a single statement)
     */
    SqlOp<Boolean> setPaused(String name, boolean paused);

    /**
     * Deletes a schedule's fired slots, then its row.
     *
     * @param name the schedule
     * @return whether the schedule existed (a transaction)
     */
    SqlOp<Boolean> delete(String name);

    /** @return every schedule's row, in any order (a read) */
    SqlOp<List<Row>> readAll();

    /**
     * @param name a schedule
     * @return its row, or no row (a read)
     */
    SqlOp<List<Row>> read(String name);

    /** @return per schedule that has fired slots, the latest time one fired, epoch milliseconds (a read) */
    SqlOp<Map<String, Long>> lastFires();

    /**
     * Records that a slot fired; a step of a fire's transaction.
     *
     * @param name    the schedule
     * @param slotMs  the slot
     * @param firedMs the time of the fire
     * @return whether it was recorded; {@code false} if the slot had fired already (a unique-key violation, after
     *         which the core rolls the transaction back)
     */
    SqlOp<Boolean> claimSlot(String name, long slotMs, long firedMs);

    /**
     * Moves a schedule to its next slot if its revision is still the one read, and bumps the revision; a step of a
     * fire's transaction, or a single statement.
     *
     * @param name     the schedule
     * @param revision the revision read by the poll
     * @param nextMs   the next slot
     * @param lastJob  the job a fixed delay awaits now, or -1 for none
     * @return whether the row was changed; {@code false} if it was changed, paused or fired meanwhile
     */
    SqlOp<Boolean> advance(String name, long revision, long nextMs, long lastJob);

    /**
     * Deletes a schedule's slot rows older than a time; a step of a fire's transaction.
     *
     * @param name     the schedule
     * @param beforeMs the oldest slot kept
     * @return nothing
     */
    SqlOp<Void> prune(String name, long beforeMs);

    /**
     * @param tables the work queue a fixed delay's job went to
     * @param id     the job
     * @return whether the job is still in the queue and not dead, so the fixed delay waits on (a read)
     */
    SqlOp<Boolean> jobPending(WorkTables tables, long id);
}
