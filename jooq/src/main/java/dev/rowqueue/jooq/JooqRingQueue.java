package dev.rowqueue.jooq;

import dev.rowqueue.RingQueue;
import org.jooq.Configuration;
import org.jooq.DSLContext;

import java.util.Objects;
import java.util.Set;

/**
 * A {@link RingQueue} that joins jOOQ transactions: pushes (and reads) of {@link #using(Configuration)}'s view run on
 * the connection jOOQ uses for that configuration, so inside {@code ctx.transaction(cfg -> ...)} they commit or roll
 * back with the transaction. The view behaves as {@link JooqWorkQueue#using(Configuration)} describes: one connection
 * acquired from {@code cfg.connectionProvider()} and released per operation, no commit, no retry.
 *
 * <pre>{@code
 * JooqRingQueue recent = JooqRingQueue.of(rowQueues.ring("recent_orders", 10));
 * ctx.transaction(cfg -> {
 *     cfg.dsl().insertInto(ORDERS).set(ORDERS.ID, 42L).execute();
 *     recent.using(cfg).push("customer-7", "order 42");
 * });
 * }</pre>
 */
public final class JooqRingQueue {
    private static final Set<String> LOCAL = Set.of("name", "capacity", "strategy");

    private final RingQueue ring;

    private JooqRingQueue(RingQueue ring) {
        this.ring = ring;
    }

    /**
     * @param ring a ring handle, normally from {@link dev.rowqueue.RowQueues#ring(String, int)}
     * @return the jOOQ binding of that handle
     */
    public static JooqRingQueue of(RingQueue ring) {
        return new JooqRingQueue(Objects.requireNonNull(ring, "ring"));
    }

    /** @return the plain handle: operations on connections of the {@code RowQueues} instance, with retries */
    public RingQueue ring() {
        return ring;
    }

    /** @return the ring name (lower case) */
    public String name() {
        return ring.name();
    }

    /**
     * @param configuration a jOOQ configuration, typically a transaction's
     * @return a view whose operations run on that configuration's connection
     * @see JooqWorkQueue#using(Configuration)
     */
    public RingQueue using(Configuration configuration) {
        return TransactionBound.view(RingQueue.class, ring, configuration, RingQueue::using, LOCAL, Set.of());
    }

    /**
     * @param ctx a jOOQ context, typically {@code cfg.dsl()} of a transaction
     * @return a view whose operations run on that context's connection
     * @see JooqWorkQueue#using(DSLContext)
     */
    public RingQueue using(DSLContext ctx) {
        return using(Objects.requireNonNull(ctx, "ctx").configuration());
    }

    @Override
    public String toString() {
        return "JooqRingQueue[" + ring.name() + "]";
    }
}
