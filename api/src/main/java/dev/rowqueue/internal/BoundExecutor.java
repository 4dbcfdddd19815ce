package dev.rowqueue.internal;

import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.Objects;

/**
 * Runs operations on a caller's connection, inside the caller's transaction, without committing. Nothing is retried
 * except a lost creation race, which is undone to a savepoint so the caller's transaction survives. On a connection
 * in auto-commit mode, a multi-statement operation gets a transaction of its own. A connection lost in the caller's
 * transaction is transient (nothing was committed; the caller retries the whole transaction); one lost while a
 * statement in auto-commit mode or the commit of the operation's own transaction ran may have committed, and throws
 * {@link UnknownCommitOutcomeException}, as on the pool.
 */
final class BoundExecutor implements Executor {
    private final Connection connection;
    private final Dialect dialect;

    BoundExecutor(Connection connection, Dialect dialect) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.dialect = dialect;
    }

    @Override
    public <R> R run(String what, SqlOp<R> op) {
        boolean[] mayHaveCommitted = {false};
        try {
            if (connection.getAutoCommit()) {
                if (op.singleStatement()) {
                    mayHaveCommitted[0] = true; // auto-commit: the statement commits itself
                    return op.run(connection);
                }
                return ownTransaction(op, mayHaveCommitted);
            }
            return op.retriesDuplicateKey() ? underSavepoint(op) : op.run(connection);
        } catch (SQLException e) {
            SqlErrorKind kind = dialect.classify(e);
            String where = what + " (on the caller's connection)";
            UnknownCommitOutcomeException unknown = Errors.unknownOutcome(where, e, kind, mayHaveCommitted[0], op,
                    dialect);
            throw unknown != null ? unknown : Errors.map(where, e, kind, dialect);
        }
    }

    @Override
    public boolean boundToCallersConnection() {
        return true;
    }

    private <R> R ownTransaction(SqlOp<R> op, boolean[] mayHaveCommitted) throws SQLException {
        dialect.beginTransaction(connection);
        R result;
        try {
            result = op.run(connection);
            mayHaveCommitted[0] = true;
            connection.commit();
        } catch (SQLException | RuntimeException | Error e) {
            PooledExecutor.rollbackQuietly(connection, e);
            restoreAutoCommit(e); // on a dead connection this fails too, and must not hide why the commit failed
            throw e;
        }
        restoreAutoCommit(null);
        return result;
    }

    /** Puts the caller's connection back in auto-commit mode; a failure is suppressed into {@code cause}, if any. */
    private void restoreAutoCommit(Throwable cause) {
        try {
            connection.setAutoCommit(true);
        } catch (SQLException | RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
        }
    }

    private <R> R underSavepoint(SqlOp<R> op) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Savepoint sp;
            try {
                sp = connection.setSavepoint();
            } catch (java.sql.SQLFeatureNotSupportedException e) {
                return op.run(connection); // no savepoints: a lost race fails the caller's transaction
            }
            try {
                return op.run(connection);
            } catch (SQLException e) {
                if (dialect.classify(e) != SqlErrorKind.DUPLICATE_KEY || attempt >= 3) {
                    throw e;
                }
                connection.rollback(sp);
            }
        }
    }
}
