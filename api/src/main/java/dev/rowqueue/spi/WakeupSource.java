package dev.rowqueue.spi;

/**
 * Wakes blocking claims ({@link dev.rowqueue.WorkQueue#claim(int, java.time.Duration)}) when the database signals
 * that a work queue has new or newly due jobs, instead of polling with a backoff. A dialect whose database can signal
 * (PostgreSQL's {@code LISTEN/NOTIFY}) returns one from {@link Dialect#wakeupSource}; every other dialect returns
 * none, and blocking claims poll.
 *
 * <p>One source serves one {@link dev.rowqueue.RowQueues} instance and all its threads; it is closed by
 * {@link dev.rowqueue.RowQueues#close()}. The core uses it like this, which is what makes a wake-up impossible to
 * lose between an empty claim and the wait:
 *
 * <pre>{@code
 * Ticket t = source.ticket(tables);   // subscribed before the claim looks
 * List<Job> jobs = claim(max);
 * if (jobs.isEmpty()) t.await(left);   // returns at once if a signal arrived since the ticket was taken
 * }</pre>
 */
public interface WakeupSource extends AutoCloseable {

    /**
     * Subscribes to a work queue's signals, if not yet subscribed, and returns a ticket that remembers which signals
     * were seen so far. The subscription is active when this returns, so a signal for work committed after it is
     * delivered. Never throws for a broken subscription: the ticket then falls back to a bounded poll.
     *
     * @param tables the work queue's tables
     * @return a ticket to wait on
     */
    Ticket ticket(WorkTables tables);

    /** Ends every subscription and releases the connection and thread the source holds. */
    @Override
    void close();

    /** What a waiting claim holds between taking a ticket and waiting. */
    interface Ticket {
        /**
         * Waits until a signal arrived that this ticket has not seen (at once if one arrived since the ticket was
         * taken), until a job announced as due later becomes due, or until the source's bounded poll interval or
         * {@code maxNanos} pass, whichever comes first. May return early; the caller then claims again.
         *
         * @param maxNanos the longest wait
         * @throws InterruptedException if the waiting thread is interrupted
         */
        void await(long maxNanos) throws InterruptedException;
    }
}
