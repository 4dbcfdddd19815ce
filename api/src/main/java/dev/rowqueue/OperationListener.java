package dev.rowqueue;

/**
 * Told about every operation of the queue handles of one {@link RowQueues}, for metrics, tracing or logs. Register
 * listeners with {@link RowQueues.Builder#operationListener(OperationListener)}.
 *
 * <ul>
 *   <li><b>Once per call.</b> Each call of a public method of {@link RingQueue}, {@link WorkQueue} or
 *       {@link Counters} (listed in {@link Operation}) is reported exactly once, when it returns or throws, whether it
 *       succeeded or not, including calls on handles bound with {@code using(connection)} and calls refused for a bad
 *       argument. Creating handles, {@link RowQueues#queues()}, {@link RowQueues#dropQueue} and schema creation are
 *       not reported.</li>
 *   <li><b>Workers too.</b> A {@link Worker} works through its queue's operations, so its claims
 *       ({@link Operation#CLAIM}, or {@link Operation#ACK_AND_CLAIM} when acks ride on them), nacks, releases,
 *       heartbeats ({@link Operation#EXTEND_LEASE}) and closing acks are reported like anyone's, on the worker's
 *       threads.</li>
 *   <li><b>Synchronous.</b> Listeners run on the thread that called the operation, after it finished, in
 *       registration order, so they must return quickly. One that throws does not change the operation's result or
 *       exception: its exception is logged (at WARN the first time for each listener, at DEBUG after) and the next
 *       listener runs.</li>
 *   <li><b>Free when unused.</b> Without a listener, operations do not read the clock nor create events.</li>
 * </ul>
 */
@FunctionalInterface
public interface OperationListener {

    /**
     * Called once for each finished operation.
     *
     * @param event what ran, on which queue, for how long, and how it ended
     */
    void onOperation(OperationEvent event);
}
