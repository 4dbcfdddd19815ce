package dev.rowqueue;

/** The three kinds of queue rowqueue keeps. */
public enum QueueKind {
    /** A capped FIFO ring queue ({@link RingQueue}). */
    RING,
    /** A work queue ({@link WorkQueue}). */
    WORK,
    /** A table of counters ({@link Counters}). */
    COUNTERS
}
