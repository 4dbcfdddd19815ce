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
     * @return the executor for work that never joins a caller's transaction (a worker's): this one, unless it joins
     *         the transaction the caller's thread has
     */
    default Executor own() {
        return this;
    }

    /**
     * Runs several steps of one operation with the connection of the transaction the calling thread has, asked once,
     * where this executor joins such transactions.
     *
     * @param what a description for error messages
     * @param body the steps, given the caller's connection, or {@code null} when there is none to join
     * @param <R>  their result type
     * @return their result
     */
    default <R> R withCaller(String what, Function<Connection, R> body) {
        return body.apply(null);
    }
}
