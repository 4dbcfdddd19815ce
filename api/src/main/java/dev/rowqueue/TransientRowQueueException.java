package dev.rowqueue;

/**
 * A failure that may succeed if tried again: a deadlock, a serialization failure, a lock wait timeout or a lost
 * connection. Thrown once the {@link RetryPolicy} is exhausted, or at once on a handle bound to a caller's
 * connection (the caller's transaction was rolled back or must be; retry the whole transaction).
 */
public class TransientRowQueueException extends RowQueueException {
    /**
     * @param message what failed
     * @param cause   the driver's exception
     */
    public TransientRowQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
