package dev.rowqueue.internal;

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
 * in auto-commit mode, a multi-statement operation gets a transaction of its own.
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
        try {
            if (connection.getAutoCommit()) {
                return op.singleStatement() ? op.run(connection) : ownTransaction(op);
            }
            return op.retriesDuplicateKey() ? underSavepoint(op) : op.run(connection);
        } catch (SQLException e) {
            throw Errors.map(what + " (on the caller's connection)", e, dialect.classify(e), dialect);
        }
    }

    private <R> R ownTransaction(SqlOp<R> op) throws SQLException {
        dialect.beginTransaction(connection);
        try {
            R result = op.run(connection);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            PooledExecutor.rollbackQuietly(connection, e);
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private <R> R underSavepoint(SqlOp<R> op) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Savepoint sp = connection.setSavepoint();
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
