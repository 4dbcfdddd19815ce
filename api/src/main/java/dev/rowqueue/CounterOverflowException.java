package dev.rowqueue;

/**
 * An increment would have taken a counter outside the 64-bit signed range. Nothing was changed.
 */
public class CounterOverflowException extends RowQueueException {
    /**
     * @param message which counter
     * @param cause   the driver's exception, or {@code null}
     */
    public CounterOverflowException(String message, Throwable cause) {
        super(message, cause);
    }
}
