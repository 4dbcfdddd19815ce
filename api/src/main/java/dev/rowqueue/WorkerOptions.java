package dev.rowqueue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;

/**
 * How a {@link Worker} runs. Immutable; each {@code with}-style method returns a copy.
 *
 * @param threads      handler threads, at least 1 (default: the JVM's processors)
 * @param prefetch     the most jobs claimed beyond the free handler threads, 0 to {@link #MAX_PREFETCH_PER_THREAD}
 *                     times {@code threads} (default: {@link #DEFAULT_PREFETCH_PER_THREAD} times {@code threads}, within
 *                     the window): they wait in the worker, leased, for a thread to free, so a thread that finishes
 *                     need not wait for a claim, and one claim brings several jobs per thread when handlers are fast;
 *                     a closing worker gives them back at once
 * @param prefetchWindow with a window (default 100 ms), a job is claimed ahead only if, at the handler times this
 *                     worker has seen so far (a moving average), a thread is expected to take it within the window:
 *                     short jobs are prefetched up to {@code prefetch}, long ones not at all, and none before the
 *                     first job has finished; {@code null}: always {@code prefetch} ahead, whatever the handlers take
 * @param heartbeat    how often running jobs' leases are extended, or {@code null} for a third of the queue's lease
 * @param drainTimeout how long {@link Worker#close()} waits for running handlers (default 30 s)
 * @param executor     the caller's executor for handlers, or {@code null} for the worker's own daemon threads; the
 *                     worker never runs more than {@code threads} handlers on it and never shuts it down
 * @param listener     what to tell about the worker's work (default: nothing)
 * @param leaseMargin  how much earlier than the database the worker takes a lease to end, for the uncertainty between
 *                     the node's clock and the database's, or {@code null} for {@link #DEFAULT_LEASE_MARGIN} (at most
 *                     a tenth of the lease); a job's lease is known to end at the time its claim or its last
 *                     successful extension was <em>sent</em>, plus the lease, minus this margin
 *                     ({@link JobContext#leaseUntil()})
 * @param interruptOnLeaseLoss whether the handler thread of a job whose lease is lost is interrupted (default
 *                     {@code true}): the job may run elsewhere from then on, so a handler that stops on interrupt
 *                     stops doing work another consumer also does
 */
public record WorkerOptions(int threads, int prefetch, Duration prefetchWindow, Duration heartbeat,
                            Duration drainTimeout, ExecutorService executor, WorkerListener listener,
                            Duration leaseMargin, boolean interruptOnLeaseLoss) {

    /**
     * The default {@link #leaseMargin()}: 250 ms, or a tenth of the lease if that is less. The worker measures a
     * lease on its own monotonic clock from the moment the claim or extension was sent, which the database can only
     * have run later, so the margin covers only a difference in clock rates and steps of the database's clock.
     */
    public static final Duration DEFAULT_LEASE_MARGIN = Duration.ofMillis(250);

    /** The default {@link #prefetchWindow()}: a job prefetched is expected to start within 100 ms. */
    public static final Duration DEFAULT_PREFETCH_WINDOW = Duration.ofMillis(100);

    /**
     * The default {@link #prefetch()} per handler thread: up to 4 jobs ahead of each thread, as many of them as the
     * threads are expected to start within the {@link #prefetchWindow()}. With fast handlers one claim then brings up
     * to five jobs per thread (one statement where a prefetch of one job per thread needs about three); with handlers
     * that outlast the window, nothing is claimed ahead.
     */
    public static final int DEFAULT_PREFETCH_PER_THREAD = 4;

    /** The most {@link #prefetch()} per handler thread. */
    public static final int MAX_PREFETCH_PER_THREAD = 16;

    /** Validates. */
    public WorkerOptions {
        if (threads < 1 || threads > 1000) {
            throw new IllegalArgumentException("threads must be between 1 and 1000, got " + threads);
        }
        if (prefetch < 0 || prefetch > MAX_PREFETCH_PER_THREAD * threads) {
            throw new IllegalArgumentException("prefetch must be between 0 and " + MAX_PREFETCH_PER_THREAD
                    + " x threads (" + MAX_PREFETCH_PER_THREAD * threads + "), got " + prefetch);
        }
        if (prefetchWindow != null) {
            WorkQueueOptions.requirePositive(prefetchWindow, "prefetchWindow");
        }
        if (heartbeat != null) {
            WorkQueueOptions.requirePositive(heartbeat, "heartbeat");
        }
        WorkQueueOptions.requireNotNegative(drainTimeout, "drainTimeout");
        Objects.requireNonNull(listener, "listener");
        if (leaseMargin != null) {
            WorkQueueOptions.requireNotNegative(leaseMargin, "leaseMargin");
        }
    }

    /**
     * The options before issue 42's lease margin and interrupt, with their defaults.
     *
     * @param threads        handler threads
     * @param prefetch       jobs claimed ahead
     * @param prefetchWindow the prefetch window, or {@code null}
     * @param heartbeat      the heartbeat, or {@code null}
     * @param drainTimeout   how long close waits
     * @param executor       the caller's executor, or {@code null}
     * @param listener       the listener
     */
    public WorkerOptions(int threads, int prefetch, Duration prefetchWindow, Duration heartbeat,
                         Duration drainTimeout, ExecutorService executor, WorkerListener listener) {
        this(threads, prefetch, prefetchWindow, heartbeat, drainTimeout, executor, listener, null, true);
    }

    /**
     * @param lease the queue's lease
     * @return the margin in effect for that lease: {@link #leaseMargin()}, or the default, at most a tenth of it
     * @throws IllegalArgumentException if the margin is not shorter than the lease
     */
    public Duration leaseMarginFor(Duration lease) {
        if (leaseMargin == null) {
            Duration tenth = lease.dividedBy(10);
            return tenth.compareTo(DEFAULT_LEASE_MARGIN) < 0 ? tenth : DEFAULT_LEASE_MARGIN;
        }
        if (leaseMargin.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("leaseMargin " + leaseMargin + " must be shorter than the lease "
                    + lease);
        }
        return leaseMargin;
    }

    /**
     * @return the JVM's processors as threads, prefetch up to {@link #DEFAULT_PREFETCH_PER_THREAD} jobs per thread
     *         within {@link #DEFAULT_PREFETCH_WINDOW}, heartbeats at a third of the lease, 30 s drain
     */
    public static WorkerOptions defaults() {
        int threads = Runtime.getRuntime().availableProcessors();
        return new WorkerOptions(threads, DEFAULT_PREFETCH_PER_THREAD * threads, DEFAULT_PREFETCH_WINDOW,
                null, Duration.ofSeconds(30), null,
                new WorkerListener() { });
    }

    /**
     * @param n handler threads
     * @return a copy with {@code n} threads; a prefetch that is a whole number of jobs per thread keeps that number
     *         per thread (the default's 4x stays 4x), another is kept, lowered to {@link #MAX_PREFETCH_PER_THREAD}
     *         times {@code n} if above it
     */
    public WorkerOptions withThreads(int n) {
        int ahead = prefetch % threads == 0 ? prefetch / threads * n : Math.min(prefetch, MAX_PREFETCH_PER_THREAD * n);
        return new WorkerOptions(n, Math.max(ahead, 0), prefetchWindow, heartbeat, drainTimeout, executor, listener,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * A fixed prefetch: up to {@code n} jobs leased ahead whatever the handlers take (no window).
     *
     * @param n jobs to claim beyond the free threads, 0 (none) to {@link #MAX_PREFETCH_PER_THREAD} times {@code threads}
     * @return a copy with that prefetch and no {@link #prefetchWindow()}
     */
    public WorkerOptions withPrefetch(int n) {
        return new WorkerOptions(threads, n, null, heartbeat, drainTimeout, executor, listener,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * An adaptive prefetch: up to {@link #prefetch()} jobs ahead, but only as many as are expected to start within
     * {@code window} at the handler times seen so far.
     *
     * @param window how soon a prefetched job should be expected to start
     * @return a copy with that window
     */
    public WorkerOptions withPrefetchWindow(Duration window) {
        return new WorkerOptions(threads, prefetch, Objects.requireNonNull(window, "prefetchWindow"), heartbeat,
                drainTimeout, executor, listener,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * @param every how often to extend running jobs' leases
     * @return a copy with that heartbeat
     */
    public WorkerOptions withHeartbeat(Duration every) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, Objects.requireNonNull(every, "heartbeat"),
                drainTimeout, executor, listener,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * @param drain how long close waits for running handlers
     * @return a copy with that drain timeout
     */
    public WorkerOptions withDrainTimeout(Duration drain) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, heartbeat, drain, executor, listener,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * @param handlers the caller's executor for handlers
     * @return a copy running handlers there
     */
    public WorkerOptions withExecutor(ExecutorService handlers) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, heartbeat, drainTimeout,
                Objects.requireNonNull(handlers, "executor"), listener, leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * @param l the listener
     * @return a copy telling {@code l}
     */
    public WorkerOptions withListener(WorkerListener l) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, heartbeat, drainTimeout, executor, l,
                leaseMargin, interruptOnLeaseLoss);
    }

    /**
     * @param margin how much earlier than the database the worker takes a lease to end (zero or more, shorter than
     *               the lease)
     * @return a copy with that margin
     */
    public WorkerOptions withLeaseMargin(Duration margin) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, heartbeat, drainTimeout, executor, listener,
                Objects.requireNonNull(margin, "leaseMargin"), interruptOnLeaseLoss);
    }

    /**
     * @param interrupt whether a handler whose job's lease is lost is interrupted
     * @return a copy with that choice
     */
    public WorkerOptions withInterruptOnLeaseLoss(boolean interrupt) {
        return new WorkerOptions(threads, prefetch, prefetchWindow, heartbeat, drainTimeout, executor, listener,
                leaseMargin, interrupt);
    }
}
