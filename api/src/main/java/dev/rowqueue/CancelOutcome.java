package dev.rowqueue;

/** What {@link WorkQueue#cancel(long)} did. Only {@link #CANCELLED} changed anything. */
public enum CancelOutcome {
    /** The job was ready or scheduled; it is deleted, and no consumer will get it. */
    CANCELLED("cancelled"),
    /**
     * Refused: a consumer holds the job under a lease that has not ended, and may be running it now; cancelling it
     * would not stop that run. It stays as it is: the consumer acks, nacks or releases it as usual. Cancel it again
     * once it is ready or scheduled (after a nack or release, or when the lease ends).
     */
    LEASED("refused: the job is leased by a consumer that may be running it; it can be cancelled once it is ready or"
            + " scheduled again"),
    /** Refused: the job is dead (a dead letter); revive or purge it instead. Nothing changed. */
    DEAD("refused: the job is dead; revive it or purge the dead letters"),
    /** No job has this id (never had, or it was acked, cancelled or purged). */
    NOT_FOUND("no job with this id");

    private final String reason;

    CancelOutcome(String reason) {
        this.reason = reason;
    }

    /** @return whether the job was cancelled */
    public boolean cancelled() {
        return this == CANCELLED;
    }

    /** @return what happened, or why the cancel was refused, in words for an operator */
    public String reason() {
        return reason;
    }
}
