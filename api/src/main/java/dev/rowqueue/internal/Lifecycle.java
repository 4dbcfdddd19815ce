package dev.rowqueue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a {@link dev.rowqueue.RowQueues} instance is open, shared by it and every handle and worker it made. After
 * {@link #close()}, every operation of a handle, and the instance's own methods, throw {@link IllegalStateException},
 * and the workers it started are stopped.
 */
final class Lifecycle {
    private final Set<DefaultWorker> workers = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;
    private volatile boolean closed;

    /**
     * @throws IllegalStateException once {@link #close()} has finished
     */
    void check() {
        if (closed) {
            throw new IllegalStateException("this RowQueues instance is closed: its queues, counters and workers"
                    + " cannot be used any more; build a new one");
        }
    }

    /**
     * Remembers a worker, so that closing stops it.
     *
     * @param worker a worker being started
     * @throws IllegalStateException when closing or closed
     */
    void started(DefaultWorker worker) {
        if (closing) {
            check();
            throw new IllegalStateException("this RowQueues instance is closing: no worker can start");
        }
        workers.add(worker);
    }

    /** @param worker a worker that closed */
    void stopped(DefaultWorker worker) {
        workers.remove(worker);
    }

    /**
     * Stops the workers (each with its own drain timeout; their last acks and releases still run), then refuses
     * everything.
     */
    void close() {
        closing = true;
        List<DefaultWorker> running = new ArrayList<>(workers);
        for (DefaultWorker w : running) {
            w.close();
        }
        workers.clear();
        closed = true;
    }

    /** @return the threads of the running workers, per queue */
    java.util.Map<String, Integer> workerThreads() {
        java.util.Map<String, Integer> threads = new java.util.HashMap<>();
        for (DefaultWorker w : workers) {
            threads.merge(w.queueName(), w.threads(), Integer::sum);
        }
        return threads;
    }

    /** @return whether closed */
    boolean closed() {
        return closed;
    }
}
