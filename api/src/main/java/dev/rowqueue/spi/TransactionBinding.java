package dev.rowqueue.spi;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Lets operations join a transaction that the calling thread already has open, as a framework manages it (a Spring
 * transaction manager, for example), instead of running in a transaction of their own. Registered with
 * {@link dev.rowqueue.RowQueues.Builder#transactionBinding(TransactionBinding)}; an integration module implements it,
 * applications rarely do.
 *
 * <p>Before each operation of a handle, rowqueue asks {@link #currentConnection(DataSource)}:
 * <ul>
 *   <li>a connection: the operation runs on it as on a handle bound with {@code using(connection)}: no commit, no
 *       rollback, no retry, no close; whether it takes effect is decided by the caller's transaction. Claims pass no
 *       {@linkplain dev.rowqueue.RowQueues.Builder#claimConcurrency(int) claim gate} then. Once the operation is over,
 *       whether it succeeded or failed, rowqueue hands the connection to {@link #release(Connection, DataSource)}.</li>
 *   <li>{@code null}: the operation borrows a connection from the data source and runs in its own transaction, with
 *       retries, as without a binding.</li>
 * </ul>
 *
 * <p>Some work never joins a caller's transaction, whatever the binding says: everything a {@link dev.rowqueue.Worker}
 * does (its claims, acks, nacks, releases and heartbeats, and those its handlers ask for through
 * {@link dev.rowqueue.JobContext}), table creation and the catalog ({@code ring}, {@code workQueue}, {@code counters},
 * {@code queues}, {@code dropQueue}), and handles bound with {@code using(connection)}, which use that connection.
 *
 * <p>Implementations are called on the application's threads, often, and must be thread-safe and cheap when the
 * thread has no transaction.
 */
public interface TransactionBinding {

    /**
     * The connection of the calling thread's current transaction on {@code dataSource}, if it has one.
     *
     * <p>Return a connection only when it carries that transaction (auto-commit off): an operation on a connection in
     * auto-commit mode commits on its own, as {@code using(connection)} does there. Never return a connection that
     * rowqueue could not hand back through {@link #release(Connection, DataSource)}.
     *
     * @param dataSource the data source the {@link dev.rowqueue.RowQueues} instance was built on
     * @return the transaction's connection, or {@code null} if the thread has no transaction on that data source
     * @throws SQLException if the transaction's connection cannot be obtained; the operation fails with a
     *                      {@link dev.rowqueue.RowQueueException} and nothing runs
     */
    Connection currentConnection(DataSource dataSource) throws SQLException;

    /**
     * Hands back a connection {@link #currentConnection(DataSource)} returned, once the operation that used it is over.
     * It must neither commit nor roll back: the transaction belongs to the caller. Called exactly once per connection
     * returned. An exception thrown here is logged and does not fail the operation.
     *
     * @param connection the connection, as returned
     * @param dataSource the data source it was asked for
     * @throws SQLException if releasing fails
     */
    void release(Connection connection, DataSource dataSource) throws SQLException;

    /**
     * Runs {@code action} once the calling thread's transaction on {@code dataSource} has committed, and never if it
     * rolls back. rowqueue asks right after an operation that joined that transaction made jobs claimable at once (an
     * enqueue due now, a nack without delay, a release, a revive), to wake this instance's idle workers and blocking
     * claims when the jobs are visible to them: woken before the commit, they would find nothing and see the jobs
     * only at their next poll.
     *
     * <p>The default registers nothing and returns {@code false}: rowqueue then runs {@code action} at once. Only
     * waiters of databases without a wake-up channel of their own are concerned; where the dialect's statements
     * signal (PostgreSQL's {@code NOTIFY}), the database delivers at the commit anyway.
     *
     * @param dataSource the data source the {@link dev.rowqueue.RowQueues} instance was built on
     * @param action     what to run after the commit; cheap, never throws
     * @return whether {@code action} will run after the transaction commits; {@code false} if the thread has no
     *         transaction on {@code dataSource} or the binding cannot tell when it commits
     */
    default boolean afterCommit(DataSource dataSource, Runnable action) {
        return false;
    }
}
