package dev.rowqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;

/**
 * How a {@link Worker} runs. Immutable; each {@code with}-style method returns a copy.
 *
 * @param threads      handler threads, at least 1 (default: the JVM's processors)
 * @param prefetch     jobs claimed beyond the free handler threads, 0 to {@code threads} (default 0): they wait in
 *                     the worker, leased, for a thread to free, so a thread that finishes need not wait for a claim;
 *                     a closing worker gives them back at once
 * @param heartbeat    how often running jobs' leases are extended, or {@code null} for a third of the queue's lease
 * @param drainTimeout how long {@link Worker#close()} waits for running handlers (default 30 s)
 * @param executor     the caller's executor for handlers, or {@code null} for the worker's own daemon threads; the
 *                     worker never runs more than {@code threads} handlers on it and never shuts it down
 * @param listener     what to tell about the worker's work (default: nothing)
 */
public record WorkerOptions(int threads, int prefetch, Duration heartbeat, Duration drainTimeout,
                            ExecutorService executor, WorkerListener listener) {

    /** Validates. */
    public WorkerOptions {
        if (threads < 1 || threads > 1000) {
            throw new IllegalArgumentException("threads must be between 1 and 1000, got " + threads);
        }
        if (prefetch < 0 || prefetch > threads) {
            throw new IllegalArgumentException("prefetch must be between 0 and threads (" + threads + "), got "
                    + prefetch);
        }
        if (heartbeat != null) {
            WorkQueueOptions.requirePositive(heartbeat, "heartbeat");
        }
        WorkQueueOptions.requireNotNegative(drainTimeout, "drainTimeout");
        Objects.requireNonNull(listener, "listener");
    }

    /** @return the JVM's processors as threads, no prefetch, heartbeats at a third of the lease, 30 s drain */
    public static WorkerOptions defaults() {
        return new WorkerOptions(Runtime.getRuntime().availableProcessors(), 0, null, Duration.ofSeconds(30), null,
                new WorkerListener() { });
    }

    /**
     * @param n handler threads
     * @return the defaults with {@code n} threads
     */
    public static WorkerOptions threads(int n) {
        return defaults().withThreads(n);
    }

    /**
     * @param n handler threads
     * @return a copy with {@code n} threads (a prefetch above {@code n} is lowered to {@code n})
     */
    public WorkerOptions withThreads(int n) {
        return new WorkerOptions(n, Math.min(prefetch, Math.max(n, 1)), heartbeat, drainTimeout, executor, listener);
    }

    /**
     * @param n jobs to claim beyond the free threads
     * @return a copy with that prefetch
     */
    public WorkerOptions withPrefetch(int n) {
        return new WorkerOptions(threads, n, heartbeat, drainTimeout, executor, listener);
    }

    /**
     * @param every how often to extend running jobs' leases
     * @return a copy with that heartbeat
     */
    public WorkerOptions withHeartbeat(Duration every) {
        return new WorkerOptions(threads, prefetch, Objects.requireNonNull(every, "heartbeat"), drainTimeout, executor,
                listener);
    }

    /**
     * @param drain how long close waits for running handlers
     * @return a copy with that drain timeout
     */
    public WorkerOptions withDrainTimeout(Duration drain) {
        return new WorkerOptions(threads, prefetch, heartbeat, drain, executor, listener);
    }

    /**
     * @param handlers the caller's executor for handlers
     * @return a copy running handlers there
     */
    public WorkerOptions withExecutor(ExecutorService handlers) {
        return new WorkerOptions(threads, prefetch, heartbeat, drainTimeout,
                Objects.requireNonNull(handlers, "executor"), listener);
    }

    /**
     * @param l the listener
     * @return a copy telling {@code l}
     */
    public WorkerOptions withListener(WorkerListener l) {
        return new WorkerOptions(threads, prefetch, heartbeat, drainTimeout, executor, l);
    }
}
