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
}
