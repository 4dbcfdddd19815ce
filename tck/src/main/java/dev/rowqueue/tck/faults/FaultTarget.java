package dev.rowqueue.tck.faults;

import dev.rowqueue.RowQueues;

import java.time.Duration;
import java.time.Instant;

/**
 * A deployment under test (a cluster, a primary with its standby, a single server) that can suffer the campaign's
 * {@link Fault faults}. Implementations live with the fixture that runs the deployment; the campaign itself
 * ({@link FaultCell}, {@link FaultCampaign}) is the same for all.
 */
public interface FaultTarget extends AutoCloseable {

    /** @return the deployment, as the report names it, e.g. "MariaDB 10.11.19 Galera, 3 nodes" */
    String name();

    /**
     * @return a builder of {@code RowQueues} on the deployment as clients reach it (a pool spread over the nodes, a
     *         multi-host URL), with the retry policy its users would set
     */
    RowQueues.Builder builder();

    /**
     * Injects a fault, holds it, ends it, and returns once the fault has ended (not necessarily once the deployment
     * is whole again: see {@link #awaitWhole}).
     *
     * @param fault the fault
     * @param hold  how long a stall, a partition or a series of connection cuts lasts
     * @return what was done, and when the fault began and ended
     * @throws UnsupportedOperationException with the reason, where the fault does not apply to the deployment
     * @throws Exception                     if the fault could not be injected or ended
     */
    Injection inject(Fault fault, Duration hold) throws Exception;

    /**
     * Waits until the deployment serves clients again after a fault, while the load goes on: by default until it is
     * whole ({@link #awaitWhole}). A deployment whose returning node may lag behind a write load for as long as it
     * lasts (a Group Replication member in its recovery) waits only until the node has rejoined; the campaign waits
     * for it to be whole once the producers stop.
     *
     * @param patience the longest wait
     * @throws Exception if it does not serve by then
     */
    default void awaitServing(Duration patience) throws Exception {
        awaitWhole(patience);
    }

    /**
     * Waits until every node is back and serving (synced, online, streaming).
     *
     * @param patience the longest wait
     * @throws Exception if it is not whole by then
     */
    void awaitWhole(Duration patience) throws Exception;

    /**
     * Called when a round found anomalies: keep what tells their cause (data directories, logs) instead of
     * deleting it with the deployment, and say where.
     */
    default void keepEvidence() {
    }

    /** Stops the deployment. */
    @Override
    void close();

    /**
     * What a fault did.
     *
     * @param what  a short description (which node, which signal)
     * @param began when the fault began
     * @param ended when it ended (the node was started again, the partition healed, the signal undone)
     */
    record Injection(String what, Instant began, Instant ended) {
    }
}
