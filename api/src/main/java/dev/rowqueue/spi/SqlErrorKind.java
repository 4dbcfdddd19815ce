package dev.rowqueue.spi;

/**
 * How the core reacts to an {@link java.sql.SQLException}, as classified by {@link Dialect#classify}.
 */
public enum SqlErrorKind {
    /** Deadlock or serialization failure; the database rolled the transaction back. Retry it. */
    ROLLED_BACK,
    /** A lock wait timed out; only the statement may have been undone. Roll back, then retry. */
    LOCK_TIMEOUT,
    /** The connection could not be used; the transaction is gone. Retry on a new connection (before commit). */
    CONNECTION,
    /** A unique key was violated; retried only where the key came from a read (a lost creation race). */
    DUPLICATE_KEY,
    /** DDL found the object already there. */
    ALREADY_EXISTS,
    /** A table or view does not exist. */
    UNDEFINED_TABLE,
    /** A numeric value left its type's range. */
    NUMERIC_OVERFLOW,
    /**
     * The database refused a write because it is read-only (SQLState {@code 25006}): a hot standby, a replica, or a
     * read-only transaction or database. Not retried: the same data source most likely reaches the same server again,
     * so retries would only hammer it; the data source must point at the primary.
     */
    READ_ONLY,
    /**
     * The database refuses to run the statement as written or for this user: a syntax error or access rule violation
     * (SQLState class {@code 42}, other than {@link #UNDEFINED_TABLE} and {@link #ALREADY_EXISTS}), invalid
     * authorization (class {@code 28}), or a dialect's vendor code for one of them. Permanent: it fails the same way
     * until the database changes (a grant, a setting put back), so it is not retried; a worker reports it at once.
     */
    REFUSED,
    /** Anything else: not retried. */
    OTHER;

    /** @return whether the core may retry an operation that failed with this kind in its own transaction */
    public boolean transientFailure() {
        return this == ROLLED_BACK || this == LOCK_TIMEOUT || this == CONNECTION;
    }
}
