package dev.rowqueue.internal;

import dev.rowqueue.spi.WakeupSource;
import dev.rowqueue.spi.WorkTables;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Wake-ups within one {@link dev.rowqueue.RowQueues} instance, for dialects whose database cannot signal (every one
 * but PostgreSQL's {@code LISTEN/NOTIFY}): a write of this instance that makes jobs of a queue claimable now (an
 * enqueue due now, a nack without delay, a release, a revival) wakes this instance's idle workers and blocking claims
 * of that queue at once, instead of leaving the job to their next poll. Writes of other processes are not seen here:
 * waiters keep polling with their backoff, and a signal only cuts a wait short.
 *
 * <p>A signal is sent after the write returned, so after its commit when rowqueue ran the transaction; a write joined
 * to a caller's transaction signals before that commit, and a waiter it wakes then finds nothing yet and waits again
 * (the job is seen by the next poll, as without wake-ups). A signal never carries work: a waiter claims as after any
 * wait, so a spurious wake-up costs one empty claim.
 */
final class LocalWakeups implements WakeupSource {
    private final ConcurrentHashMap<String, Signal> signals = new ConcurrentHashMap<>();

    /**
     * Wakes the waiters of a queue.
     *
     * @param queue the queue's name
     */
    void signal(String queue) {
        Signal s = signals.get(queue);
        if (s != null) {
            s.fire();
        }
    }

    @Override
    public Ticket ticket(WorkTables tables) {
        return signals.computeIfAbsent(tables.queue(), q -> new Signal()).ticket();
    }

    @Override
    public void close() {
        signals.values().forEach(Signal::fire); // nobody sleeps past the instance's close
    }

    /** A counter of signals that waiters block on. */
    private static final class Signal {
        private long fired;

        synchronized void fire() {
            fired++;
            notifyAll();
        }

        synchronized Ticket ticket() {
            long seen = fired;
            return maxNanos -> {
                long deadline = System.nanoTime() + maxNanos;
                synchronized (this) {
                    while (fired == seen) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            return;
                        }
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    }
                }
            };
        }
    }
}
