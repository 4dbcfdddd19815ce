package dev.rowqueue;

import java.sql.SQLException;

/**
 * A database operation failed. Carries the SQLState and vendor code of the underlying {@link SQLException} where
 * there was one. Subtypes tell the cases callers act on.
 */
public class RowQueueException extends RuntimeException {
    private final String sqlState;
    private final int vendorCode;

    /**
     * @param message what failed
     * @param cause   the driver's exception, or {@code null}
     */
    public RowQueueException(String message, Throwable cause) {
        super(message, cause);
        SQLException sql = cause instanceof SQLException s ? s : null;
        this.sqlState = sql == null ? null : sql.getSQLState();
        this.vendorCode = sql == null ? 0 : sql.getErrorCode();
    }

    /** @param message what failed */
    public RowQueueException(String message) {
        this(message, null);
    }

    /** @return the SQLState of the underlying error, or {@code null} */
    public String sqlState() {
        return sqlState;
    }

    /** @return the vendor error code of the underlying error, or 0 */
    public int vendorCode() {
        return vendorCode;
    }
}
