package dev.rowqueue.internal;

import dev.rowqueue.RingEntry;
import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.spi.RingStore;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The {@link RingQueue} implementation: validation, then the dialect's store through an executor. Where operation
 * listeners are registered, callers get it inside an {@link ObservedRingQueue}
 * ({@link DefaultRowQueues.Context#handle}).
 */
final class DefaultRingQueue implements RingQueue {
    private final String name;
    private final RingOptions options;
    private final RingStore store;
    private final DefaultRowQueues.Context context;

    DefaultRingQueue(String name, RingOptions options, RingStore store, DefaultRowQueues.Context context) {
        this.name = name;
        this.options = options;
        this.store = store;
        this.context = context;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int capacity() {
        return options.capacity();
    }

    @Override
    public RingStrategy strategy() {
        return options.strategy();
    }

    private String group(String group) {
        return Validation.key("group", group, MAX_GROUP_LENGTH);
    }

    @Override
    public long push(String group, String payload) {
        String g = group(group);
        Validation.payload(payload, context.maxPayloadLength());
        return context.executor().run("push into ring " + name, "ring " + name + " " + g,
                store.push(g, List.of(payload)))[0];
    }

    @Override
    public List<Long> pushAll(String group, List<String> payloads) {
        String g = group(group);
        List<String> checked = Validation.payloads(payloads, context.maxPayloadLength());
        long[] seqs = context.executor().run("push into ring " + name, "ring " + name + " " + g,
                store.push(g, checked));
        List<Long> result = new ArrayList<>(seqs.length);
        for (long seq : seqs) {
            result.add(seq);
        }
        return Collections.unmodifiableList(result);
    }

    @Override
    public List<RingEntry> newestFirst(String group) {
        return read(group, true, 0);
    }

    @Override
    public List<RingEntry> newestFirst(String group, int limit) {
        return read(group, true, Validation.positive("limit", limit));
    }

    @Override
    public List<RingEntry> oldestFirst(String group) {
        return read(group, false, 0);
    }

    @Override
    public Optional<RingEntry> latest(String group) {
        return read(group, true, 1).stream().findFirst();
    }

    private List<RingEntry> read(String group, boolean newestFirst, int limit) {
        String g = group(group);
        return List.copyOf(context.executor().run("read ring " + name, store.read(g, newestFirst, limit)));
    }

    @Override
    public int size(String group) {
        String g = group(group);
        return context.executor().run("size of ring " + name, store.size(g));
    }

    @Override
    public void clear(String group) {
        String g = group(group);
        context.executor().run("clear ring " + name, "ring " + name + " " + g, store.clear(g));
    }

    @Override
    public List<String> groups() {
        List<String> groups = new ArrayList<>(context.executor().run("list groups of ring " + name, store.groups()));
        Collections.sort(groups);
        return Collections.unmodifiableList(groups);
    }

    @Override
    public RingQueue using(Connection connection) {
        return context.handle(new DefaultRingQueue(name, options, store, context.bound(connection)),
                ObservedRingQueue::new);
    }

    @Override
    public String toString() {
        return "RingQueue[" + name + ", capacity " + options.capacity() + ", " + options.strategy() + "]";
    }
}
