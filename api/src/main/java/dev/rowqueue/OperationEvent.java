package dev.rowqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * One finished operation of a queue handle, as told to an {@link OperationListener}.
 *
 * @param queue     the queue (table) name, lower case
 * @param operation what ran; its {@link Operation#kind() kind} is the queue's
 * @param items     how many entries, jobs or counters it handled, as each {@link Operation} constant says; 0 when it
 *                  failed
 * @param nanos     how long the call took, from entering the method to leaving it: argument checks, the wait for a
 *                  connection and for the queue's claim gate, retries and their backoff, the statements
 * @param outcome   {@link Outcome#SUCCESS}, or what kind of failure
 * @param error     what the call threw (and the caller received), or {@code null} on success
 */
public record OperationEvent(String queue, Operation operation, int items, long nanos, Outcome outcome,
                             Throwable error) {

    /** Validates. */
    public OperationEvent {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(outcome, "outcome");
        if ((outcome == Outcome.SUCCESS) != (error == null)) {
            throw new IllegalArgumentException("an error goes with a failed outcome, and only with one: " + outcome
                    + ", " + error);
        }
    }

    /** @return the kind of queue: {@code operation().kind()} */
    public QueueKind kind() {
        return operation.kind();
    }

    /** @return {@link #nanos()} as a duration */
    public Duration duration() {
        return Duration.ofNanos(nanos);
    }

    /** @return whether the operation returned normally */
    public boolean succeeded() {
        return outcome == Outcome.SUCCESS;
    }

    /**
     * How an operation ended: normally, or with which kind of failure, derived from the exception rowqueue threw.
     * Coarse on purpose, so it can tag metrics; the exception itself is {@link OperationEvent#error()}.
     */
    public enum Outcome {
        /** It returned normally (for a handle bound to a caller's connection: its statements ran; the caller's
         *  transaction may still roll back). */
        SUCCESS,
        /** A bad argument, refused before any SQL ran: {@link IllegalArgumentException} (such as
         *  {@link InvalidNameException}) or {@link NullPointerException}. */
        INVALID_INPUT,
        /** {@link TransientRowQueueException}: a deadlock, serialization failure, lock timeout or lost connection
         *  that outlasted the retry policy (at once on a caller's connection), or an interrupted wait. */
        TRANSIENT,
        /** {@link UnknownCommitOutcomeException}: the connection failed while a commit was in flight. */
        UNKNOWN_COMMIT,
        /** {@link SchemaException}: a table is missing or has another shape. */
        SCHEMA,
        /** {@link QueueConflictException}: the catalog records another definition. */
        CONFLICT,
        /** {@link SequenceExhaustedException} or {@link CounterOverflowException}: a 64-bit limit was reached. */
        LIMIT,
        /** Any other {@link RowQueueException}: the database refused the operation. */
        DATABASE,
        /** Anything else ({@link IllegalStateException}, an {@link Error}, ...). */
        OTHER;

        /**
         * @param error what an operation threw, or {@code null}
         * @return {@link #SUCCESS} for {@code null}, else the kind of failure
         */
        public static Outcome of(Throwable error) {
            if (error == null) {
                return SUCCESS;
            }
            if (error instanceof IllegalArgumentException || error instanceof NullPointerException) {
                return INVALID_INPUT;
            }
            if (error instanceof TransientRowQueueException) {
                return TRANSIENT;
            }
            if (error instanceof UnknownCommitOutcomeException) {
                return UNKNOWN_COMMIT;
            }
            if (error instanceof SchemaException) {
                return SCHEMA;
            }
            if (error instanceof QueueConflictException) {
                return CONFLICT;
            }
            if (error instanceof SequenceExhaustedException || error instanceof CounterOverflowException) {
                return LIMIT;
            }
            if (error instanceof RowQueueException) {
                return DATABASE;
            }
            return OTHER;
        }
    }
}
