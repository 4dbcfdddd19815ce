package dev.rowqueue;

import java.time.Instant;
import java.util.List;

/**
 * A queue as recorded in the catalog table.
 *
 * @param name      the queue name
 * @param kind      ring, work queue or counters
 * @param capacity  the ring capacity, 0 for other kinds
 * @param strategy  the ring strategy, {@code null} for other kinds
 * @param createdAt when the queue was first registered
 * @param tables    the tables that hold it
 */
public record QueueInfo(String name, QueueKind kind, int capacity, RingStrategy strategy, Instant createdAt,
                        List<String> tables) {
    /** Copies the table list. */
    public QueueInfo {
        tables = List.copyOf(tables);
    }
}
