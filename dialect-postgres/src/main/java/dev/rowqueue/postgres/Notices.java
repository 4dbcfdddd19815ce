package dev.rowqueue.postgres;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Coalesces the {@code NOTIFY} of one queue's concurrent enqueues in one {@code RowQueues} instance. PostgreSQL
 * serializes the commits of every notifying transaction of the server, so 16 threads that each notify their own
 * enqueue queue up behind one another; a listener needs only to learn that work was committed after it last looked.
 *
 * <p>An enqueue that finds no notification in flight <em>leads</em>: it sends its {@code pg_notify} in its own
 * statement, as without coalescing. One that finds a notification in flight inserts without one and, once its insert
 * has committed, marks a notification <em>owed</em>; whoever next finds none in flight (the leader when it ends, or
 * the owing enqueue itself) sends one more. So for every committed enqueue a notification is sent after its commit,
 * and concurrent enqueues share them: a listener woken by it claims and sees the job.
 */
final class Notices {
    private final AtomicBoolean sending = new AtomicBoolean();
    private final AtomicBoolean owed = new AtomicBoolean();

    /** Sends one notification, after the commits it covers; reports its own failures, never throws. */
    @FunctionalInterface
    interface Send {
        void send();
    }

    /** @return whether the caller leads: it sends its notification in its statement, and must call {@link #led} */
    boolean lead() {
        return sending.compareAndSet(false, true);
    }

    /**
     * Ends a lead, once its statement returned (committed or failed), and sends what became owed meanwhile.
     *
     * @param send sends a notification
     */
    void led(Send send) {
        sending.set(false);
        settle(send);
    }

    /**
     * Records that an enqueue committed without a notification, and sends one unless one in flight will.
     *
     * @param send sends a notification
     */
    void owe(Send send) {
        owed.set(true);
        settle(send);
    }

    private void settle(Send send) {
        // re-checked after each send: an enqueue that marked a notification owed while this one was in flight, and
        // failed to take the turn, is covered by the next round of this loop
        while (owed.get() && sending.compareAndSet(false, true)) {
            try {
                if (owed.getAndSet(false)) {
                    send.send();
                }
            } finally {
                sending.set(false);
            }
        }
    }
}
