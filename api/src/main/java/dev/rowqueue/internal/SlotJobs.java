package dev.rowqueue.internal;

import dev.rowqueue.Enqueue;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlOp;
import dev.rowqueue.spi.WorkStore;
import dev.rowqueue.spi.WorkTables;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job of a schedule's slot: its payload and key templates rendered for the slot, enqueued through its work
 * queue's store inside the caller's transaction (a fire, or {@code triggerNow}).
 */
final class SlotJobs {
    private final Dialect dialect;
    private final int maxPayloadLength;
    private final Map<String, WorkStore> stores = new ConcurrentHashMap<>();

    SlotJobs(Dialect dialect, int maxPayloadLength) {
        this.dialect = dialect;
        this.maxPayloadLength = maxPayloadLength;
    }

    /**
     * @param c       the transaction's connection
     * @param name    the schedule
     * @param queue   its work queue
     * @param payload its payload template
     * @param key     its key template, or {@code null}
     * @param slot    the slot, epoch milliseconds
     * @return the job's id
     * @throws SQLException from the driver
     */
    long enqueue(Connection c, String name, String queue, String payload, String key, long slot) throws SQLException {
        Instant at = Instant.ofEpochMilli(slot);
        String body = Validation.payload(ScheduleOptions.render(payload, name, at), maxPayloadLength);
        WorkStore store = stores.computeIfAbsent(queue, q -> dialect.workStore(WorkTables.of(q)));
        SqlOp<long[]> op = key == null ? store.enqueue(List.of(body), 0, 0)
                : store.enqueue(List.of(body), 0, 0, Enqueue.defaults().withKey(ScheduleOptions.render(key, name, at)).key(), null);
        return op.run(c)[0];
    }
}
