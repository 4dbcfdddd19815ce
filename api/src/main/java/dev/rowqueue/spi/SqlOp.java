package dev.rowqueue.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * One queue operation's database work. Stores return these; the core runs them on a connection it manages
 * (retrying transient failures) or on a caller's connection.
 *
 * <p>An operation declares how it must run: a {@linkplain #statement single statement} runs in auto-commit mode,
 * so it costs one round trip; a {@linkplain #transaction transaction} runs with auto-commit off at READ COMMITTED and
 * is committed by the core.
 *
 * @param <R> the result type
 */
public interface SqlOp<R> {

    /**
     * Does the work. Must not commit, roll back or close the connection.
     *
     * @param connection a connection in the mode the operation declared
     * @return the result
     * @throws SQLException on a database error; the core classifies and maps it
     */
    R run(Connection connection) throws SQLException;

    /** @return {@code true} if the work is one statement, atomic on its own (run in auto-commit mode) */
    default boolean singleStatement() {
        return false;
    }

    /** @return {@code true} if running the work twice has the effect of running it once (reads) */
    default boolean idempotent() {
        return false;
    }

    /**
     * @return {@code true} if a unique-key violation means the operation lost a creation race (the key came from a
     *         read) and a retry will find the row
     */
    default boolean retriesDuplicateKey() {
        return false;
    }

    /**
     * @param body one atomic statement
     * @param <R>  the result type
     * @return an operation run in auto-commit mode
     */
    static <R> SqlOp<R> statement(SqlOp<R> body) {
        return new Flagged<>(body, true, false, false);
    }

    /**
     * @param body one read-only statement
     * @param <R>  the result type
     * @return an operation run in auto-commit mode, retried even when the connection fails mid-flight
     */
    static <R> SqlOp<R> read(SqlOp<R> body) {
        return new Flagged<>(body, true, true, false);
    }

    /**
     * @param body several statements that must commit together
     * @param <R>  the result type
     * @return an operation run in one transaction
     */
    static <R> SqlOp<R> transaction(SqlOp<R> body) {
        return new Flagged<>(body, false, false, false);
    }

    /** @return this operation, also retried after a unique-key violation (a lost creation race) */
    default SqlOp<R> retryingDuplicateKey() {
        return new Flagged<>(this, singleStatement(), idempotent(), true);
    }

    /** Carries the flags of the factory methods. */
    record Flagged<R>(SqlOp<R> body, boolean singleStatement, boolean idempotent, boolean retriesDuplicateKey)
            implements SqlOp<R> {
        @Override
        public R run(Connection connection) throws SQLException {
            return body.run(connection);
        }
    }
}
