package dev.rowqueue;

/**
 * The public operations of the queue handles, as reported to an {@link OperationListener}. Overloads of one method
 * are one operation ({@code nack(job)} and {@code nack(job, delay, error)} are both {@link #NACK}); a method that is
 * built on another ({@link Counters#allocate}) is reported as itself only.
 *
 * <p>Each constant says what {@link OperationEvent#items()} counts for it. On a failure, {@code items} is always 0.
 */
public enum Operation {

    // ------------------------------------------------------------------ rings

    /** {@link RingQueue#push}: items 1. */
    PUSH(QueueKind.RING),
    /** {@link RingQueue#pushAll}: items = entries pushed. */
    PUSH_ALL(QueueKind.RING),
    /** {@link RingQueue#newestFirst}, {@link RingQueue#oldestFirst} and {@link RingQueue#latest}: items = entries read. */
    READ(QueueKind.RING),
    /** {@link RingQueue#size}: items 1. */
    SIZE(QueueKind.RING),
    /** {@link RingQueue#clear}: items 1. */
    CLEAR(QueueKind.RING),
    /** {@link RingQueue#groups}: items = groups listed. */
    GROUPS(QueueKind.RING),

    // ------------------------------------------------------------------ work queues

    /** {@link WorkQueue#enqueue}: items 1. */
    ENQUEUE(QueueKind.WORK),
    /** {@link WorkQueue#enqueueAll}: items = jobs enqueued. */
    ENQUEUE_ALL(QueueKind.WORK),
    /** {@link WorkQueue#claim(int)}, also a worker's claims while it has no ack to send: items = jobs claimed. */
    CLAIM(QueueKind.WORK),
    /**
     * {@link WorkQueue#claim(int, java.time.Duration)}, the blocking claim: items = jobs claimed. Its time includes the
     * wait for jobs, so it is kept apart from {@link #CLAIM}.
     */
    CLAIM_WAIT(QueueKind.WORK),
    /** {@link WorkQueue#ack}, also a worker's acks while it stops: items 1, or 0 if the lease was lost. */
    ACK(QueueKind.WORK),
    /**
     * {@link WorkQueue#ackAndClaim}, also a worker's claims with acks riding on them: items = jobs claimed (the acks
     * are not counted; a worker's are its {@link WorkerListener#succeeded} jobs).
     */
    ACK_AND_CLAIM(QueueKind.WORK),
    /** {@link WorkQueue#nack}, also a worker's nack of a job whose handler threw: items 1, or 0 if the lease was lost. */
    NACK(QueueKind.WORK),
    /** {@link WorkQueue#release}, also a worker's give-backs: items 1, or 0 if the lease was lost. */
    RELEASE(QueueKind.WORK),
    /**
     * {@link WorkQueue#extendLease}: items 1, or 0 if the lease was lost. Also a worker's heartbeat, which extends
     * many leases in one statement: items = leases extended.
     */
    EXTEND_LEASE(QueueKind.WORK),
    /** {@link WorkQueue#rotate}: items = jobs claimed. */
    ROTATE(QueueKind.WORK),
    /** {@link WorkQueue#deadLetters}: items = dead jobs listed. */
    DEAD_LETTERS(QueueKind.WORK),
    /** {@link WorkQueue#revive}: items 1, or 0 if no dead job had the id. */
    REVIVE(QueueKind.WORK),
    /** {@link WorkQueue#reviveAll}: items = jobs revived. */
    REVIVE_ALL(QueueKind.WORK),
    /** {@link WorkQueue#purgeDead}: items = jobs deleted. */
    PURGE_DEAD(QueueKind.WORK),
    /** {@link WorkQueue#stats}: items 1. */
    STATS(QueueKind.WORK),
    /** {@link WorkQueue#statsByKey}: items = keys counted. */
    STATS_BY_KEY(QueueKind.WORK),
    /** {@link WorkQueue#job}: items 1, or 0 if no job had the id. */
    JOB(QueueKind.WORK),
    /** {@link WorkQueue#jobs}: items = jobs listed. */
    JOBS(QueueKind.WORK),
    /** {@link WorkQueue#cancel}: items 1 if the job was cancelled, else 0. */
    CANCEL(QueueKind.WORK),
    /** {@link WorkQueue#activity}: items 1. */
    ACTIVITY(QueueKind.WORK),
    /** {@link WorkQueue#rateWindow}: items 1, or 0 if there is none. */
    RATE_WINDOW(QueueKind.WORK),

    // ------------------------------------------------------------------ counters

    /** {@link Counters#increment}: items 1. */
    INCREMENT(QueueKind.COUNTERS),
    /** {@link Counters#get}: items 1. */
    GET(QueueKind.COUNTERS),
    /** {@link Counters#set}: items 1. */
    SET(QueueKind.COUNTERS),
    /** {@link Counters#allocate}: items = values reserved (the block's size). */
    ALLOCATE(QueueKind.COUNTERS),
    /** {@link Counters#remove}: items 1, or 0 if the counter did not exist. */
    REMOVE(QueueKind.COUNTERS),
    /** {@link Counters#all}: items = counters read. */
    READ_ALL(QueueKind.COUNTERS);

    private final QueueKind kind;

    Operation(QueueKind kind) {
        this.kind = kind;
    }

    /** @return the kind of queue this operation belongs to */
    public QueueKind kind() {
        return kind;
    }
}
