package dev.rowqueue.jooq;

import dev.rowqueue.WorkQueue;
import org.jooq.Configuration;
import org.jooq.DSLContext;

import java.util.Objects;
import java.util.Set;

/**
 * A {@link WorkQueue} that joins jOOQ transactions: {@link #using(Configuration)} returns a view whose operations run
 * on the connection jOOQ itself would use for a statement of that configuration, so inside
 * {@code ctx.transaction(cfg -> ...)} they commit or roll back with the transaction (a transactional outbox):
 *
 * <pre>{@code
 * JooqWorkQueue emails = JooqWorkQueue.of(rowQueues.workQueue("emails"));
 * ctx.transaction(cfg -> {
 *     cfg.dsl().insertInto(ORDERS).set(ORDERS.ID, 42L).execute();
 *     emails.using(cfg).enqueue("order 42 confirmed");
 * });
 * emails.queue().claim(10);    // the plain handle: own connections, own transactions, retries
 * }</pre>
 *
 * <p>Each operation of the view acquires a connection from {@code cfg.connectionProvider()}, runs the handle's
 * {@link WorkQueue#using(java.sql.Connection) using(connection)} operation on it and releases it:
 * <ul>
 *   <li>inside a transaction of jOOQ's {@code DefaultTransactionProvider} (the default) the provider answers the
 *       transaction's connection, and a nested transaction is a savepoint on it: an operation in a nested transaction
 *       that rolls back is rolled back with it;</li>
 *   <li>with a {@code ThreadLocalTransactionProvider}, {@code using(ctx)} joins the transaction of the calling
 *       thread;</li>
 *   <li>outside a transaction the operation runs on a connection of its own from the provider, in a transaction of
 *       its own if that connection is in auto-commit mode (as a jOOQ statement would), without retries.</li>
 * </ul>
 * Operations on the view are never retried and never commit: a transient failure
 * ({@link dev.rowqueue.TransientRowQueueException}) is the caller's to retry with its whole transaction. Failing to
 * acquire a connection throws jOOQ's {@code DataAccessException}, as a jOOQ statement would.
 *
 * <p>Instances are immutable and thread-safe; a view is as thread-safe as the connection it gets. Create the handle
 * once, outside transactions: {@code rowQueues.workQueue(name)} may create tables, on a connection of its own.
 */
public final class JooqWorkQueue {
    private static final Set<String> LOCAL = Set.of("name", "options");
    private static final Set<String> REFUSED = Set.of("worker");

    private final WorkQueue queue;

    private JooqWorkQueue(WorkQueue queue) {
        this.queue = queue;
    }

    /**
     * @param queue a work queue handle, normally from {@link dev.rowqueue.RowQueues#workQueue(String)}
     * @return the jOOQ binding of that handle
     */
    public static JooqWorkQueue of(WorkQueue queue) {
        return new JooqWorkQueue(Objects.requireNonNull(queue, "queue"));
    }

    /** @return the plain handle: operations on connections of the {@code RowQueues} instance, with retries */
    public WorkQueue queue() {
        return queue;
    }

    /** @return the queue name (lower case) */
    public String name() {
        return queue.name();
    }

    /**
     * The queue in the transaction of {@code configuration}: typically the {@code cfg} that
     * {@code ctx.transaction(cfg -> ...)} hands its lambda.
     *
     * @param configuration a jOOQ configuration; each operation of the view uses its connection provider
     * @return a view whose operations run on that configuration's connection; {@code worker(...)} is not offered
     */
    public WorkQueue using(Configuration configuration) {
        return TransactionBound.view(WorkQueue.class, queue, configuration, WorkQueue::using, LOCAL, REFUSED);
    }

    /**
     * The queue in the transaction of {@code ctx}'s configuration (see {@link #using(Configuration)}): {@code
     * cfg.dsl()} inside {@code ctx.transaction(cfg -> ...)}, or the context itself with a
     * {@code ThreadLocalTransactionProvider}.
     *
     * @param ctx a jOOQ context
     * @return a view whose operations run on that context's connection
     */
    public WorkQueue using(DSLContext ctx) {
        return using(Objects.requireNonNull(ctx, "ctx").configuration());
    }

    @Override
    public String toString() {
        return "JooqWorkQueue[" + queue.name() + "]";
    }
}
