package dev.rowqueue;

/**
 * A ring group has used every sequence number up to {@link Long#MAX_VALUE}. Nothing was written; the group's
 * entries are intact. Sequence numbers never wrap, since wrapping would reorder the ring silently.
 */
public class SequenceExhaustedException extends RowQueueException {
    /** @param message which group */
    public SequenceExhaustedException(String message) {
        super(message);
    }
}
