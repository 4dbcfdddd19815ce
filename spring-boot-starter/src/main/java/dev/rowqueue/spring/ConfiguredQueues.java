package dev.rowqueue.spring;

import dev.rowqueue.RingOptions;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.WorkerOptions;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Queue handles with the options of the {@code rowqueue.work-queues.<name>.*} and {@code rowqueue.rings.<name>.*}
 * properties, for application code that would rather name a queue than repeat its options. Handles are created
 * (and their tables, when schema creation is on) on first use and kept.
 *
 * <pre>{@code
 * @Service
 * class Orders {
 *     private final WorkQueue emails;
 *
 *     Orders(ConfiguredQueues queues) {
 *         this.emails = queues.workQueue("emails");
 *     }
 *
 *     @Transactional
 *     void place(Order order) {
 *         repository.save(order);
 *         emails.enqueue(order.id());   // commits or rolls back with the order
 *     }
 * }
 * }</pre>
 */
public class ConfiguredQueues {
    private final RowQueues rowQueues;
    private final RowQueueProperties properties;
    private final Map<String, WorkQueue> workQueues = new ConcurrentHashMap<>();
    private final Map<String, RingQueue> rings = new ConcurrentHashMap<>();

    /**
     * @param rowQueues  the instance queues are taken from
     * @param properties the configuration
     */
    public ConfiguredQueues(RowQueues rowQueues, RowQueueProperties properties) {
        this.rowQueues = Objects.requireNonNull(rowQueues, "rowQueues");
        this.properties = Objects.requireNonNull(properties, "properties");
    }

    /** @return the underlying instance */
    public RowQueues rowQueues() {
        return rowQueues;
    }

    /**
     * @param name a work queue's name
     * @return {@link WorkQueueOptions#defaults()} with what {@code rowqueue.work-queues.<name>.*} sets
     * @throws IllegalArgumentException naming the queue's properties, when the options refuse what they set
     */
    public WorkQueueOptions workQueueOptions(String name) {
        RowQueueProperties.WorkQueue configured = properties.workQueue(name);
        if (configured == null) {
            return WorkQueueOptions.defaults();
        }
        try {
            return configured.applyTo(WorkQueueOptions.defaults());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("rowqueue.work-queues." + name + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param name a work queue's name
     * @return {@link WorkerOptions#defaults()} with what {@code rowqueue.work-queues.<name>.worker.*} sets
     */
    public WorkerOptions workerOptions(String name) {
        RowQueueProperties.WorkQueue configured = properties.workQueue(name);
        return configured == null ? WorkerOptions.defaults() : configured.getWorker().applyTo(WorkerOptions.defaults());
    }

    /**
     * @param name a work queue's name
     * @return a handle with {@link #workQueueOptions(String)}
     */
    public WorkQueue workQueue(String name) {
        Objects.requireNonNull(name, "name");
        return workQueues.computeIfAbsent(name.toLowerCase(Locale.ROOT),
                n -> rowQueues.workQueue(name, workQueueOptions(name)));
    }

    /**
     * @param name a ring's name
     * @return a handle with the capacity and strategy of {@code rowqueue.rings.<name>.*}
     * @throws IllegalStateException if no capacity is configured for it
     */
    public RingQueue ring(String name) {
        Objects.requireNonNull(name, "name");
        return rings.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> {
            RowQueueProperties.Ring configured = properties.ring(name);
            if (configured == null || configured.getCapacity() == null) {
                throw new IllegalStateException("no capacity configured for ring '" + name + "': set rowqueue.rings."
                        + name + ".capacity, or use RowQueues#ring(String, int)");
            }
            return rowQueues.ring(name, RingOptions.ofCapacity(configured.getCapacity())
                    .withStrategy(configured.getStrategy()));
        });
    }
}
