package dev.rowqueue;

/**
 * A queue's tables are missing (with schema creation turned off) or exist with another shape, for example a table
 * of the same name that rowqueue did not create.
 */
public class SchemaException extends RowQueueException {
    /**
     * @param message what is wrong and how to fix it
     * @param cause   the driver's exception, or {@code null}
     */
    public SchemaException(String message, Throwable cause) {
        super(message, cause);
    }
}
