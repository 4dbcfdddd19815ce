package dev.rowqueue.internal;

import dev.rowqueue.RowQueueException;
import dev.rowqueue.SchemaException;
import dev.rowqueue.StatementRefusedException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;

import java.sql.SQLException;

/** Turns driver exceptions into rowqueue's unchecked exceptions. */
final class Errors {
    private Errors() {
    }

    /**
     * @param what             the operation, for the message
     * @param e                the driver's exception
     * @param kind             its classification
     * @param mayHaveCommitted whether the failure came while the work could have committed (a statement in
     *                         auto-commit mode was sent, or the commit)
     * @param op               the operation
     * @param dialect          the dialect
     * @return the exception to throw when a lost connection leaves the outcome unknown, or {@code null}
     */
    static UnknownCommitOutcomeException unknownOutcome(String what, SQLException e, SqlErrorKind kind,
                                                        boolean mayHaveCommitted, SqlOp<?> op, Dialect dialect) {
        if (kind != SqlErrorKind.CONNECTION || !mayHaveCommitted || op.idempotent()
                || dialect.failedBeforeSending(e)) {
            return null;
        }
        return new UnknownCommitOutcomeException(what + ": the connection failed while the operation could have"
                + " committed; it was not retried. " + describe(e), e);
    }

    static RowQueueException map(String what, SQLException driver, SqlErrorKind kind, Dialect dialect) {
        SQLException e = withState(driver, dialect);
        String detail = describe(e);
        if (kind.transientFailure()) {
            return new TransientRowQueueException(what + " failed transiently (" + kind + "): " + detail, e);
        }
        if (kind == SqlErrorKind.READ_ONLY) {
            return new RowQueueException(what + " failed: the database is read-only (a hot standby or replica, or a"
                    + " read-only transaction); nothing was written and it was not retried. Point the data source at"
                    + " the primary (PostgreSQL's JDBC driver: targetServerType=primary). " + detail, e);
        }
        if (kind == SqlErrorKind.UNDEFINED_TABLE) {
            return new SchemaException(what + " failed: a table is missing (" + detail
                    + "); was it dropped outside rowqueue?", e);
        }
        if (kind == SqlErrorKind.REFUSED) {
            return new StatementRefusedException(what, what + " failed: the database refuses the statement (a syntax"
                    + " error or a missing privilege); it fails the same way until the database or its grants"
                    + " change. " + detail, e);
        }
        return new RowQueueException(what + " failed: " + detail, e);
    }

    /**
     * @return the exception, or, where the dialect derives an SQLState the driver did not report, one that carries
     *         it with the driver's exception as its cause
     */
    static SQLException withState(SQLException e, Dialect dialect) {
        String state = dialect.sqlState(e);
        return state == null || state.equals(e.getSQLState()) ? e
                : new SQLException(e.getMessage(), state, e.getErrorCode(), e);
    }

    static String describe(SQLException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        int newline = message.indexOf('\n');
        if (newline > 0) {
            message = message.substring(0, newline);
        }
        return message + " [SQLState " + e.getSQLState() + ", vendor code " + e.getErrorCode() + "]";
    }
}
