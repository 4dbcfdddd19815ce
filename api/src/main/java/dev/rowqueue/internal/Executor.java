package dev.rowqueue.internal;

import dev.rowqueue.spi.SqlOp;

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
}
