package dev.rowqueue.internal;

import dev.rowqueue.spi.SqlOp;

import java.sql.Connection;
import java.util.function.Function;

/** Runs store operations on a connection: pooled with retries, or bound to a caller's connection. */
interface Executor {
    /**
     * @param what a description for error messages, e.g. "push into ring recent_views"
     * @param op   the work
     * @param <R>  its result type
     * @return its result
     */
    <R> R run(String what, SqlOp<R> op);

    /**
     * Runs an operation that writes a hot row (a ring's head, a counter, a queue's claim gate): where the database's
     * writers of one row fail each other, its attempts take turns with the others of that row ({@link HotRowTurns}).
     *
     * @param what   a description for error messages
     * @param hotRow the row, e.g. {@code "ring recent_views g"}
     * @param op     the work
     * @param <R>    its result type
     * @return its result
     */
    default <R> R run(String what, String hotRow, SqlOp<R> op) {
        return run(what, op);
    }

    /**
     * Whether every operation runs on the one connection a caller handed in ({@code using(connection)}): work that
     * needs connections of its own, a worker's, cannot run here.
     *
     * @return {@code true} for a handle bound to a caller's connection
     */
    default boolean boundToCallersConnection() {
        return false;
    }

    /**
     * The executor for work that never joins a caller's transaction (a worker's claims, acks and heartbeats).
     *
     * @return the executor on connections of its own: this one, unless this one joins callers' transactions
     */
    default Executor own() {
        return this;
    }

    /**
     * Runs several steps of one operation with the connection of the caller's transaction that this executor joins
     * (asked once), or with {@code null} where it joins none: an executor on connections of its own, and one bound to
     * a caller's connection already, never ask.
     *
     * @param what a description for error messages
     * @param body the steps, given the caller's connection or {@code null}
     * @param <R>  their result type
     * @return their result
     */
    default <R> R withCaller(String what, Function<Connection, R> body) {
        return body.apply(null);
    }

    /**
     * Runs {@code action} once the operation this thread just ran here has committed: at once where operations commit
     * before {@link #run} returns, or leave their commit to a caller who holds the connection ({@code
     * using(connection)}: rowqueue cannot see that commit); at the commit of the caller's transaction where this
     * executor joined one and its binding can tell ({@link dev.rowqueue.spi.TransactionBinding#afterCommit}).
     *
     * @param action what to run; cheap, never throws
     */
    default void afterCommit(Runnable action) {
        action.run();
    }
}
