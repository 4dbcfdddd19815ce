package dev.rowqueue.internal;

import dev.rowqueue.CounterBlock;
import dev.rowqueue.CounterOverflowException;
import dev.rowqueue.Counters;
import dev.rowqueue.spi.CounterStore;

import java.sql.Connection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@link Counters} implementation. Where operation listeners are registered, callers get it inside an
 * {@link ObservedCounters} ({@link DefaultRowQueues.Context#handle}).
 */
final class DefaultCounters implements Counters {
    private final String name;
    private final CounterStore store;
    private final DefaultRowQueues.Context context;

    DefaultCounters(String name, CounterStore store, DefaultRowQueues.Context context) {
        this.name = name;
        this.store = store;
        this.context = context;
    }

    private static String key(String key) {
        return Validation.key("counter key", key, MAX_KEY_LENGTH);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long increment(String key) {
        return increment(key, 1);
    }

    @Override
    public long increment(String key, long delta) {
        String k = key(key);
        return context.executor().run("increment counter " + name + "." + k, "counter " + name + " " + k,
                        store.add(k, delta))
                .orElseThrow(() -> new CounterOverflowException("counter '" + k + "' of " + name + " + " + delta
                        + " would leave the 64-bit range; it was not changed", null));
    }

    @Override
    public long get(String key) {
        String k = key(key);
        return context.executor().run("read counter " + name + "." + k, store.get(k)).orElse(0L);
    }

    @Override
    public void set(String key, long value) {
        String k = key(key);
        context.executor().run("set counter " + name + "." + k, "counter " + name + " " + k, store.set(k, value));
    }

    @Override
    public CounterBlock allocate(String key, int size) {
        Validation.positive("block size", size);
        long last = increment(key, size);
        return new CounterBlock(last - size + 1, last);
    }

    @Override
    public boolean remove(String key) {
        String k = key(key);
        return context.executor().run("remove counter " + name + "." + k, "counter " + name + " " + k,
                store.remove(k));
    }

    @Override
    public Map<String, Long> all() {
        return Collections.unmodifiableMap(new TreeMap<>(context.executor().run("read counters " + name,
                store.all())));
    }

    @Override
    public Counters using(Connection connection) {
        return context.handle(new DefaultCounters(name, store, context.bound(connection)), ObservedCounters::new);
    }

    @Override
    public String toString() {
        return "Counters[" + name + "]";
    }
}
