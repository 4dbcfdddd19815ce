package dev.rowqueue;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a ring queue group.
 *
 * @param seq      the entry's sequence number within its group (1 for the group's first push)
 * @param payload  the pushed text
 * @param pushedAt when it was pushed, by the database's clock where the dialect reads it
 */
public record RingEntry(long seq, String payload, Instant pushedAt) {
    /** Validates the components. */
    public RingEntry {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(pushedAt, "pushedAt");
    }
}
