package dev.rowqueue.tck.faults;

/**
 * Something a {@link HistoryChecker} found that rowqueue promises never happens.
 *
 * @param kind   what kind of promise it breaks
 * @param detail the operations involved, for the report
 */
public record Anomaly(Kind kind, String detail) {

    /** The promises. */
    public enum Kind {
        /** An enqueue acknowledged OK whose job never ran and is not in the queue. */
        LOST_JOB,
        /** A job ran (or is in the queue) whose enqueue failed, or was never called. */
        PHANTOM_JOB,
        /** One enqueue's payload is in two jobs: a write applied twice. */
        DUPLICATE_JOB,
        /** A job was handed to a consumer while another consumer's lease on it lived. */
        DOUBLE_RUN,
        /** A job was handed out again after an ack of it was reported. */
        RUN_AFTER_ACK,
        /** A job ran before its enqueue was called. */
        RUN_BEFORE_ENQUEUE,
        /** More jobs of one key were leased at one moment than the queue's per-key limit. */
        KEY_LIMIT_EXCEEDED,
        /** A ring push acknowledged OK is missing or replaced, though newer than the ring's eviction point. */
        LOST_PUSH,
        /** A ring holds an entry whose push failed or was never called, or entries out of order or with gaps. */
        RING_DISORDER,
        /** One sequence number reported for two pushes, or numbers not increasing in real-time order. */
        DUPLICATE_NUMBER,
        /** A counter outside what the acknowledged and unknown increments allow, or a value given twice. */
        COUNTER,
        /** A schedule's slot enqueued more than one job. */
        SLOT_FIRED_TWICE,
        /** A failure that is neither {@code TransientRowQueueException} nor {@code UnknownCommitOutcomeException}. */
        UNDOCUMENTED_ERROR,
        /** The system did not make progress: jobs left after the drain, a role that never recovered. */
        LIVENESS
    }

    @Override
    public String toString() {
        return kind + ": " + detail;
    }
}
