package dev.rowqueue.internal;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.TransactionBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;

/**
 * Runs an operation on the connection of the caller's current transaction when the {@link TransactionBinding} has
 * one (as {@link BoundExecutor} does), otherwise on the {@link PooledExecutor} in a transaction of its own.
 */
final class JoiningExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(JoiningExecutor.class);

    private final Executor own;
    private final TransactionBinding binding;
    private final DataSource dataSource;
    private final Dialect dialect;

    JoiningExecutor(Executor own, TransactionBinding binding, DataSource dataSource, Dialect dialect) {
        this.own = own;
        this.binding = binding;
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    /** @return the executor that never joins: connections of its own from the data source */
    @Override
    public Executor own() {
        return own;
    }

    @Override
    public <R> R run(String what, SqlOp<R> op) {
        return withCaller(what, c -> c == null ? own.run(what, op) : new BoundExecutor(c, dialect).run(what, op));
    }

    @Override
    public <R> R run(String what, String hotRow, SqlOp<R> op) {
        return withCaller(what, c -> c == null ? own.run(what, hotRow, op)
                : new BoundExecutor(c, dialect).run(what, op));
    }

    @Override
    public void afterCommit(Runnable action) {
        boolean registered;
        try {
            registered = binding.afterCommit(dataSource, action);
        } catch (RuntimeException e) {
            log.warn("rowqueue: the transaction binding failed to register an after-commit wake-up; waking now", e);
            registered = false;
        }
        if (!registered) {
            action.run();
        }
    }

    /**
     * Asks the binding once for the caller's transaction and runs {@code body} with its connection, or with
     * {@code null} when there is none, then hands the connection back.
     */
    @Override
    public <R> R withCaller(String what, Function<Connection, R> body) {
        Connection c;
        try {
            c = binding.currentConnection(dataSource);
        } catch (SQLException e) {
            throw Errors.map(what + " (getting the connection of the caller's transaction)", e, dialect.classify(e),
                    dialect);
        }
        if (c == null) {
            return body.apply(null);
        }
        try {
            return body.apply(c);
        } finally {
            try {
                binding.release(c, dataSource);
            } catch (SQLException | RuntimeException e) {
                log.warn("rowqueue: {}: the transaction binding failed to release the caller's connection", what, e);
            }
        }
    }
}
