package dev.rowqueue.jooq;

import dev.rowqueue.RowQueues;
import org.jooq.Configuration;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.DefaultConnectionProvider;
import org.jooq.impl.NoConnectionProvider;
import org.jooq.impl.ThreadLocalTransactionProvider;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * Builds a {@link RowQueues} on the connections of a jOOQ {@link DSLContext}.
 *
 * <pre>{@code
 * DSLContext ctx = DSL.using(dataSource, SQLDialect.POSTGRES);
 * RowQueues rq = JooqRowQueues.builder(ctx).build();
 * JooqWorkQueue emails = JooqWorkQueue.of(rq.workQueue("emails"));
 *
 * ctx.transaction(cfg -> {
 *     cfg.dsl().insertInto(ORDERS).set(ORDERS.ID, 42L).execute();
 *     emails.using(cfg).enqueue("order 42 confirmed");      // commits or rolls back with the insert
 * });
 * }</pre>
 *
 * <p>A {@code RowQueues} runs its own operations (those of handles not bound with {@code using}) on connections of its
 * own, each in a short transaction that it commits, possibly from several threads at once, and a PostgreSQL instance
 * keeps one connection to listen for new jobs. So it needs a source of independent connections:
 * <ul>
 *   <li>a {@code DSLContext} made from a {@link DataSource} ({@link DataSourceConnectionProvider}): rowqueue uses
 *       that data source itself;</li>
 *   <li>any other {@link ConnectionProvider}: each connection rowqueue borrows is {@link ConnectionProvider#acquire()
 *       acquired} from it and {@link ConnectionProvider#release(java.sql.Connection) released} to it when rowqueue
 *       closes it. The provider must hand out a connection of its own at each call, as a pool does;</li>
 *   <li>a {@code DSLContext} on one connection ({@code DSL.using(connection)}: a {@link DefaultConnectionProvider}),
 *       the {@link Configuration} of a running transaction (whose provider is such a wrapper around the transaction's
 *       connection), one with a {@link ThreadLocalTransactionProvider} (whose provider hands the current thread's
 *       transaction connection to whoever asks) or one with no connection at all are refused: rowqueue would commit
 *       the caller's transaction, or share one connection between threads. Build from the data source instead
 *       ({@link RowQueues#builder(DataSource)}); handles of that instance still join jOOQ transactions through
 *       {@link JooqWorkQueue#using(Configuration)} and its siblings.</li>
 * </ul>
 */
public final class JooqRowQueues {

    private JooqRowQueues() {
    }

    /**
     * A {@link RowQueues} builder on the connections of a {@code DSLContext} (see {@link #dataSource(Configuration)});
     * every other setting is the {@link RowQueues.Builder}'s, with its defaults.
     *
     * @param ctx a context made from a data source or a pooling connection provider
     * @return a builder; the dialect is detected from the database, not from jOOQ's {@code SQLDialect}
     * @throws IllegalArgumentException if the context's connections cannot serve rowqueue's own operations
     */
    public static RowQueues.Builder builder(DSLContext ctx) {
        return RowQueues.builder(dataSource(Objects.requireNonNull(ctx, "ctx").configuration()));
    }

    /**
     * The {@link DataSource} rowqueue's own operations borrow connections from, for this configuration: the data
     * source of a {@link DataSourceConnectionProvider} itself, or a view of another {@link ConnectionProvider} whose
     * {@code getConnection()} acquires a connection and whose connections' {@code close()} releases it.
     *
     * <p>The data source of a {@code DataSourceConnectionProvider} is taken as it is. If it is transaction-aware
     * (Spring's {@code TransactionAwareDataSourceProxy}, as Spring Boot's jOOQ auto-configuration sets up), it hands
     * rowqueue the connection of the calling thread's Spring transaction, which rowqueue would commit: build from its
     * target data source instead.
     *
     * @param configuration a configuration outside any transaction
     * @return a data source; it needs no closing (closing what it hands out releases to the provider)
     * @throws IllegalArgumentException for a single connection, a running transaction's configuration, a
     *                                  {@link ThreadLocalTransactionProvider} or no connection provider
     */
    public static DataSource dataSource(Configuration configuration) {
        Objects.requireNonNull(configuration, "configuration");
        if (configuration.transactionProvider() instanceof ThreadLocalTransactionProvider) {
            throw new IllegalArgumentException("this DSLContext uses a ThreadLocalTransactionProvider: its connection"
                    + " provider hands the calling thread's transaction connection to whoever asks, so rowqueue's own"
                    + " operations (which commit) would commit that transaction. Build RowQueues from the data source"
                    + " behind it (RowQueues.builder(dataSource)); bind handles to its transactions with"
                    + " JooqWorkQueue.using(ctx) and its siblings");
        }
        ConnectionProvider provider = configuration.connectionProvider();
        if (provider instanceof DataSourceConnectionProvider dataSourceProvider) {
            return dataSourceProvider.dataSource();
        }
        if (provider instanceof DefaultConnectionProvider) {
            throw new IllegalArgumentException("this configuration holds a single connection (DSL.using(connection),"
                    + " or the configuration of a running transaction): rowqueue commits its own operations and runs"
                    + " them from several threads, so it cannot share that connection. Build RowQueues from a data"
                    + " source (DSL.using(dataSource, dialect), or RowQueues.builder(dataSource)); bind handles to a"
                    + " transaction on that connection with JooqWorkQueue.using(configuration) and its siblings");
        }
        if (provider == null || provider instanceof NoConnectionProvider) {
            throw new IllegalArgumentException("this configuration has no connection provider (a detached DSLContext);"
                    + " make it from a data source: DSL.using(dataSource, dialect)");
        }
        return new ConnectionProviderDataSource(provider);
    }
}
