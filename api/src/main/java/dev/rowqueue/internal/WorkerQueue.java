package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spi.WorkTables;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * What a worker needs of its queue: the public operations, one lease extension for many jobs, and the instance it
 * belongs to. {@link DefaultWorkQueue} does the work; {@link ObservedWorkQueue} reports it where listeners are
 * registered, so a worker's operations are reported like anyone's.
 */
interface WorkerQueue extends WorkQueue {
    /**
     * Extends the leases of several jobs in one statement (a worker's heartbeat), reported as one
     * {@link dev.rowqueue.Operation#EXTEND_LEASE}.
     *
     * @param jobs  at most {@link Validation#MAX_BATCH} leased jobs
     * @param lease the new lease from now
     * @return the ids whose lease was extended
     */
    Set<Long> extendLeases(List<Job> jobs, Duration lease);

    /** @return the node registry of the instance this handle belongs to */
    NodeRegistry node();

    /** @return the lifecycle of the instance this handle belongs to */
    Lifecycle lifecycle();

    /** @return the queue's tables */
    default WorkTables tables() {
        return WorkTables.of(name());
    }
}
