package dev.rowqueue.internal;

import dev.rowqueue.CounterBlock;
import dev.rowqueue.CounterOverflowException;
import dev.rowqueue.Counters;
import dev.rowqueue.Operation;
import dev.rowqueue.spi.CounterStore;

import java.sql.Connection;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** The {@link Counters} implementation. */
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
        Operations ops = context.operations();
        return ops == null ? add(key, delta)
                : ops.run(name, Operation.INCREMENT, () -> add(key, delta), Operations.ONE);
    }

    private long add(String key, long delta) {
        String k = key(key);
        return context.executor().run("increment counter " + name + "." + k, "counter " + name + " " + k,
                        store.add(k, delta))
                .orElseThrow(() -> new CounterOverflowException("counter '" + k + "' of " + name + " + " + delta
                        + " would leave the 64-bit range; it was not changed", null));
    }

    @Override
    public long get(String key) {
        Operations ops = context.operations();
        return ops == null ? getNow(key) : ops.run(name, Operation.GET, () -> getNow(key), Operations.ONE);
    }

    private long getNow(String key) {
        String k = key(key);
        return context.executor().run("read counter " + name + "." + k, store.get(k)).orElse(0L);
    }

    @Override
    public void set(String key, long value) {
        Operations ops = context.operations();
        if (ops == null) {
            setNow(key, value);
        } else {
            ops.run(name, Operation.SET, () -> setNow(key, value));
        }
    }

    private void setNow(String key, long value) {
        String k = key(key);
        context.executor().run("set counter " + name + "." + k, "counter " + name + " " + k, store.set(k, value));
    }

    @Override
    public CounterBlock allocate(String key, int size) {
        Operations ops = context.operations();
        return ops == null ? allocateNow(key, size)
                : ops.run(name, Operation.ALLOCATE, () -> allocateNow(key, size), block -> size);
    }

    private CounterBlock allocateNow(String key, int size) {
        Validation.positive("block size", size);
        long last = add(key, size);
        return new CounterBlock(last - size + 1, last);
    }

    @Override
    public boolean remove(String key) {
        Operations ops = context.operations();
        return ops == null ? removeNow(key) : ops.run(name, Operation.REMOVE, () -> removeNow(key), Operations.IF_TRUE);
    }

    private boolean removeNow(String key) {
        String k = key(key);
        return context.executor().run("remove counter " + name + "." + k, "counter " + name + " " + k,
                store.remove(k));
    }

    @Override
    public Map<String, Long> all() {
        Operations ops = context.operations();
        return ops == null ? allNow() : ops.run(name, Operation.READ_ALL, this::allNow, Map::size);
    }

    private Map<String, Long> allNow() {
        return Collections.unmodifiableMap(new TreeMap<>(context.executor().run("read counters " + name,
                store.all())));
    }

    @Override
    public Counters using(Connection connection) {
        return new DefaultCounters(name, store, context.bound(connection));
    }

    @Override
    public String toString() {
        return "Counters[" + name + "]";
    }
}
