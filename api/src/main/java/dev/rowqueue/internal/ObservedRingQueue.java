package dev.rowqueue.internal;

import dev.rowqueue.Operation;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;

import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * A {@link RingQueue} that reports each operation of the ring it wraps, once, through {@link Operations}. Made only
 * where operation listeners are registered ({@link DefaultRowQueues.Context#handle}); a handle bound with
 * {@code using(connection)} is made by the wrapped ring through the same context, so it reports too.
 */
final class ObservedRingQueue extends ObservedHandle<RingQueue> implements RingQueue {
    ObservedRingQueue(RingQueue ring, Operations operations) {
        super(ring, ring.name(), operations);
    }

    @Override
    public int capacity() {
        return handle.capacity();
    }

    @Override
    public RingStrategy strategy() {
        return handle.strategy();
    }

    @Override
    public long push(String group, String payload) {
        return report(Operation.PUSH, () -> handle.push(group, payload), Operations.ONE);
    }

    @Override
    public List<Long> pushAll(String group, List<String> payloads) {
        return report(Operation.PUSH_ALL, () -> handle.pushAll(group, payloads), Operations.SIZE);
    }

    @Override
    public List<RingEntry> newestFirst(String group) {
        return report(Operation.READ, () -> handle.newestFirst(group), Operations.SIZE);
    }

    @Override
    public List<RingEntry> newestFirst(String group, int limit) {
        return report(Operation.READ, () -> handle.newestFirst(group, limit), Operations.SIZE);
    }

    @Override
    public List<RingEntry> oldestFirst(String group) {
        return report(Operation.READ, () -> handle.oldestFirst(group), Operations.SIZE);
    }

    @Override
    public Optional<RingEntry> latest(String group) {
        return report(Operation.READ, () -> handle.latest(group), e -> e.isPresent() ? 1 : 0);
    }

    @Override
    public int size(String group) {
        return report(Operation.SIZE, () -> handle.size(group), Operations.ONE);
    }

    @Override
    public void clear(String group) {
        report(Operation.CLEAR, () -> handle.clear(group));
    }

    @Override
    public List<String> groups() {
        return report(Operation.GROUPS, handle::groups, Operations.SIZE);
    }

    @Override
    public RingQueue using(Connection connection) {
        return handle.using(connection); // made through the same context: reports too
    }
}
