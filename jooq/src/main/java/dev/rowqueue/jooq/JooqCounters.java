package dev.rowqueue.jooq;

import dev.rowqueue.Counters;
import org.jooq.Configuration;
import org.jooq.DSLContext;

import java.util.Objects;
import java.util.Set;

/**
 * {@link Counters} that join jOOQ transactions: increments of {@link #using(Configuration)}'s view run on the
 * connection jOOQ uses for that configuration, so inside {@code ctx.transaction(cfg -> ...)} they commit or roll back
 * with the transaction (an invoice number drawn by a transaction that rolls back is given again). The view behaves as
 * {@link JooqWorkQueue#using(Configuration)} describes: one connection acquired from {@code cfg.connectionProvider()}
 * and released per operation, no commit, no retry.
 *
 * <pre>{@code
 * JooqCounters numbers = JooqCounters.of(rowQueues.counters("numbers"));
 * long invoice = ctx.transactionResult(cfg -> {
 *     long n = numbers.using(cfg).increment("invoice");
 *     cfg.dsl().insertInto(INVOICES).set(INVOICES.NO, n).execute();
 *     return n;
 * });
 * }</pre>
 *
 * <p>An increment inside a transaction holds the counter's row lock until the transaction ends: concurrent
 * transactions incrementing the same key wait for one another.
 */
public final class JooqCounters {
    private static final Set<String> LOCAL = Set.of("name");

    private final Counters counters;

    private JooqCounters(Counters counters) {
        this.counters = counters;
    }

    /**
     * @param counters a counters handle, normally from {@link dev.rowqueue.RowQueues#counters(String)}
     * @return the jOOQ binding of that handle
     */
    public static JooqCounters of(Counters counters) {
        return new JooqCounters(Objects.requireNonNull(counters, "counters"));
    }

    /** @return the plain handle: operations on connections of the {@code RowQueues} instance, with retries */
    public Counters counters() {
        return counters;
    }

    /** @return the table name (lower case) */
    public String name() {
        return counters.name();
    }

    /**
     * @param configuration a jOOQ configuration, typically a transaction's
     * @return a view whose operations run on that configuration's connection
     * @see JooqWorkQueue#using(Configuration)
     */
    public Counters using(Configuration configuration) {
        return TransactionBound.view(Counters.class, counters, configuration, Counters::using, LOCAL, Set.of());
    }

    /**
     * @param ctx a jOOQ context, typically {@code cfg.dsl()} of a transaction
     * @return a view whose operations run on that context's connection
     * @see JooqWorkQueue#using(DSLContext)
     */
    public Counters using(DSLContext ctx) {
        return using(Objects.requireNonNull(ctx, "ctx").configuration());
    }

    @Override
    public String toString() {
        return "JooqCounters[" + counters.name() + "]";
    }
}
