package dev.rowqueue;

/**
 * The connection was lost while a commit was in flight: the operation may or may not have taken effect, so it was
 * not retried (retrying could enqueue or push twice). Check the queue's state before repeating the operation.
 */
public class UnknownCommitOutcomeException extends RowQueueException {
    /**
     * @param message what failed
     * @param cause   the driver's exception
     */
    public UnknownCommitOutcomeException(String message, Throwable cause) {
        super(message, cause);
    }
}
