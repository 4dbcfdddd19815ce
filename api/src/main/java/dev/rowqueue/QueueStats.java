package dev.rowqueue;

/**
 * Counts of a work queue's jobs by state, taken in one statement.
 *
 * @param ready     claimable now (including jobs whose lease has ended)
 * @param scheduled waiting for their delay or retry time
 * @param leased    held by a consumer whose lease has not ended
 * @param dead      exhausted their attempts; see {@link WorkQueue#deadLetters(int)}
 */
public record QueueStats(long ready, long scheduled, long leased, long dead) {
    /** @return all jobs in the queue */
    public long total() {
        return ready + scheduled + leased + dead;
    }
}
