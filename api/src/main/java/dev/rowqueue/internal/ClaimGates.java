package dev.rowqueue.internal;

import dev.rowqueue.TransientRowQueueException;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Bounds the claims of each work queue that run at once through one {@code RowQueues} instance
 * ({@code RowQueues.Builder#claimConcurrency}). A claimer waits here, in arrival order, before it borrows a connection,
 * so waiting claimers hold nothing the running ones could need.
 */
final class ClaimGates {
    /** No limit: claims on a caller's connection, or {@code claimConcurrency(Integer.MAX_VALUE)}. */
    static final ClaimGates NONE = new ClaimGates(Integer.MAX_VALUE);

    private final int permits;
    private final ConcurrentHashMap<String, Semaphore> gates = new ConcurrentHashMap<>();

    /**
     * @param permits claims of one queue at once, at least 1
     */
    ClaimGates(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("claimConcurrency must be at least 1, got " + permits);
        }
        this.permits = permits;
    }

    /**
     * @param queue the work queue
     * @param claim the claim
     * @param <R>   its result type
     * @return its result, once a permit of the queue was free
     * @throws TransientRowQueueException if the thread is interrupted while it waits (its flag is set again)
     */
    <R> R through(String queue, Supplier<R> claim) {
        if (permits == Integer.MAX_VALUE) {
            return claim.get();
        }
        Semaphore gate = gates.computeIfAbsent(queue, q -> new Semaphore(permits, true));
        try {
            gate.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransientRowQueueException("interrupted while waiting to claim from " + queue, e);
        }
        try {
            return claim.get();
        } finally {
            gate.release();
        }
    }
}
