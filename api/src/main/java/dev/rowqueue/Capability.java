package dev.rowqueue;

/**
 * Features a dialect may offer on a given database version. Required behaviour never depends on a capability;
 * capabilities choose faster statements and unlock optional strategies.
 */
public enum Capability {
    /** Claims skip rows locked by other consumers ({@code FOR UPDATE SKIP LOCKED} or an equivalent). */
    SKIP_LOCKED,
    /** Data-changing statements return rows ({@code RETURNING}, {@code FINAL TABLE}, ...). */
    RETURNING,
    /** The database has {@code MERGE} or an upsert statement. */
    UPSERT,
    /** Times (due times, leases, push times) come from the database's clock, not the application's. */
    DATABASE_CLOCK,
    /** {@link RingStrategy#SINGLE_WRITER} is offered. */
    SINGLE_WRITER_RING,
    /** {@link RingStrategy#TRIGGER} is offered. */
    TRIGGER_RING,
    /** A blocking claim is woken by the database when a job arrives, instead of polling. */
    WAKEUP
}
