package dev.rowqueue.internal;

import dev.rowqueue.CounterBlock;
import dev.rowqueue.Counters;
import dev.rowqueue.Operation;

import java.sql.Connection;
import java.util.Map;

/**
 * {@link Counters} that report each operation of the counters they wrap, once, through {@link Operations}. Made only
 * where operation listeners are registered ({@link DefaultRowQueues.Context#handle}); a handle bound with
 * {@code using(connection)} is made by the wrapped counters through the same context, so it reports too.
 */
final class ObservedCounters extends ObservedHandle<Counters> implements Counters {
    ObservedCounters(Counters counters, Operations operations) {
        super(counters, counters.name(), operations);
    }

    @Override
    public long increment(String key) {
        return report(Operation.INCREMENT, () -> handle.increment(key), Operations.ONE);
    }

    @Override
    public long increment(String key, long delta) {
        return report(Operation.INCREMENT, () -> handle.increment(key, delta), Operations.ONE);
    }

    @Override
    public long get(String key) {
        return report(Operation.GET, () -> handle.get(key), Operations.ONE);
    }

    @Override
    public void set(String key, long value) {
        report(Operation.SET, () -> handle.set(key, value));
    }

    @Override
    public CounterBlock allocate(String key, int size) {
        return report(Operation.ALLOCATE, () -> handle.allocate(key, size), block -> size);
    }

    @Override
    public boolean remove(String key) {
        return report(Operation.REMOVE, () -> handle.remove(key), Operations.IF_TRUE);
    }

    @Override
    public Map<String, Long> all() {
        return report(Operation.READ_ALL, handle::all, Map::size);
    }

    @Override
    public Counters using(Connection connection) {
        return handle.using(connection); // made through the same context: reports too
    }
}
