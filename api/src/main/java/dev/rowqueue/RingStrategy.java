package dev.rowqueue;

/**
 * How a ring queue writes a push. The strategy is fixed when a ring is created and recorded in the catalog.
 */
public enum RingStrategy {
    /**
     * The default, safe for any number of concurrent producers per group: a head row per group holds the last
     * sequence number; a push locks and bumps it, then writes the slot {@code seq mod capacity}, in one
     * transaction (in one statement where the dialect can). Pushes into one group serialize on its head row;
     * pushes into different groups do not wait for each other.
     */
    SAFE,

    /**
     * The source articles' single statement: the next sequence number is read as {@code MAX(seq) + 1} of the group
     * inside the upsert itself, with no head row. Correct only with <strong>one writer per group at a time</strong>:
     * concurrent producers on one group can fail or, on some databases and isolation levels, silently overwrite
     * each other's entries. Offered where the dialect declares {@link Capability#SINGLE_WRITER_RING}.
     */
    SINGLE_WRITER,

    /**
     * The database keeps every group at its capacity with a trigger, even for rows inserted with a plain
     * {@code INSERT} by programs that do not use rowqueue. Offered where the dialect declares
     * {@link Capability#TRIGGER_RING}.
     */
    TRIGGER
}
