package dev.rowqueue;

/**
 * A queue was opened with a definition that contradicts the one recorded in the catalog: another kind, capacity or
 * strategy, or a name whose tables collide with another queue's.
 */
public class QueueConflictException extends RowQueueException {
    /** @param message the recorded and the requested definition */
    public QueueConflictException(String message) {
        super(message);
    }
}
