package dev.rowqueue.support;

import dev.rowqueue.spi.SqlErrorKind;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;

/**
 * How a database reports errors: which {@link SqlErrorKind} a driver exception is, its SQLState, and whether a
 * connection error proves the statement never reached the server. The base class ({@link #STANDARD}) knows SQL's
 * standard SQLState classes, common vendor states and the JDBC exception subclasses; a dialect whose database says
 * more with vendor codes extends it and overrides {@link #classifyOne} (falling back to {@code super}), and where it
 * must, {@link #sqlState} and {@link #failedBeforeSending}.
 */
public class SqlErrors {

    /** The standard classification. */
    public static final SqlErrors STANDARD = new SqlErrors();

    /** For subclasses; the standard classification is {@link #STANDARD}. */
    protected SqlErrors() {
    }

    /**
     * Classifies a driver exception, looking through batch and chained exceptions: the first of the chain that
     * {@link #classifyOne} recognises decides.
     *
     * @param e the exception
     * @return how the core should react
     */
    public final SqlErrorKind classify(SQLException e) {
        for (SQLException x = e; x != null; x = next(x)) {
            SqlErrorKind kind = classifyOne(x);
            if (kind != SqlErrorKind.OTHER) {
                return kind;
            }
        }
        return SqlErrorKind.OTHER;
    }

    private static SQLException next(SQLException x) {
        if (x.getNextException() != null && x.getNextException() != x) {
            return x.getNextException();
        }
        return x.getCause() instanceof SQLException s && s != x ? s : null;
    }

    /**
     * Classifies one exception of a chain by SQLState and JDBC exception subclass; override to add vendor codes, and
     * fall back to {@code super}.
     *
     * @param e one exception
     * @return its kind, or {@link SqlErrorKind#OTHER}
     */
    protected SqlErrorKind classifyOne(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.startsWith("40")) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (state.startsWith("08")) {
            return SqlErrorKind.CONNECTION;
        }
        switch (state) {
            case "23505":
                return SqlErrorKind.DUPLICATE_KEY;
            case "22003":
                return SqlErrorKind.NUMERIC_OVERFLOW;
            case "42P07": case "42S01": case "42S11":
                return SqlErrorKind.ALREADY_EXISTS;
            case "42P01": case "42S02":
                return SqlErrorKind.UNDEFINED_TABLE;
            case "55P03": case "HYT00":
                return SqlErrorKind.LOCK_TIMEOUT;
            case "25006": // read-only SQL-transaction: a hot standby, a read-only replica or transaction
                return SqlErrorKind.READ_ONLY;
            default:
                break;
        }
        if (e instanceof SQLTransactionRollbackException) {
            return SqlErrorKind.ROLLED_BACK;
        }
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException) {
            return SqlErrorKind.CONNECTION;
        }
        if (e instanceof SQLTimeoutException) {
            return SqlErrorKind.LOCK_TIMEOUT;
        }
        return SqlErrorKind.OTHER;
    }

    /**
     * The SQLState that rowqueue's exceptions ({@link dev.rowqueue.RowQueueException#sqlState()}) report for a
     * driver exception. The default is the driver's own. A database whose driver reports none derives a standard one
     * from the vendor code; the core then hands the driver's exception on as the cause of an {@link SQLException}
     * that carries the derived state, message and vendor code.
     *
     * @param e a driver exception
     * @return its SQLState, or {@code null}
     */
    public String sqlState(SQLException e) {
        return e.getSQLState();
    }

    /**
     * Whether a connection error proves the statement never reached the server (so even a non-idempotent
     * auto-commit statement may be retried). The default recognises "connection does not exist" (08003) and
     * "unable to connect" (08001, 08004).
     *
     * @param e a {@link SqlErrorKind#CONNECTION} error
     * @return {@code true} if the work surely did not run
     */
    public boolean failedBeforeSending(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.equals("08003") || state.equals("08001") || state.equals("08004");
    }
}
