package dev.rowqueue.mysql;

import dev.rowqueue.spi.SqlOp;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * MariaDB's compound statement outside stored programs ({@code BEGIN NOT ATOMIC ... END}, MariaDB 10.1.1+): several
 * statements, a transaction of their own included, sent and answered in <b>one round trip</b>, without the driver's
 * {@code allowMultiQueries} (it is one statement to the driver and the parser). The text is:
 *
 * <pre>{@code
 * BEGIN NOT ATOMIC
 *   DECLARE ...;
 *   DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
 *   SET TRANSACTION ISOLATION LEVEL READ COMMITTED;   -- this transaction only; the session keeps its level
 *   START TRANSACTION;
 *   ...;
 *   COMMIT;
 *   SELECT ...;                                        -- results come back as result sets
 * END
 * }</pre>
 *
 * An error rolls the transaction back and is re-signalled with its own code and SQLState (a deadlock is still 1213 and
 * retried by the core). Without the compound statement the same work takes two statements plus the core's
 * transaction control: {@code set autocommit=0}, the isolation switch and its restore, {@code COMMIT},
 * {@code set autocommit=1}, about seven round trips.
 *
 * <p>It runs only where the connection is in auto-commit mode: inside a caller's transaction
 * ({@code queue.using(connection)}) a {@code START TRANSACTION} would commit the caller's work, so the operation runs
 * its plain statements there instead. Both drivers send it with parameters bound client-side (their default) or
 * prepared on the server ({@code useServerPrepStmts=true}; MariaDB prepares compound statements).
 */
final class Compound {

    private Compound() {
    }

    /** The work of an operation in one compound statement. */
    @FunctionalInterface
    interface Body<R> {
        /**
         * @param c a connection in auto-commit mode
         * @return the result
         * @throws SQLException from the driver
         */
        R run(Connection c) throws SQLException;
    }

    /**
     * @param compound    the operation as one compound statement
     * @param transaction the same operation as plain statements in a transaction
     * @param <R>         the result type
     * @return an operation that runs the compound statement in auto-commit mode (one statement, as the core sees
     *         it), and the plain statements inside a caller's transaction
     */
    static <R> SqlOp<R> orTransaction(Body<R> compound, SqlOp<R> transaction) {
        return SqlOp.statement(c -> c.getAutoCommit() ? compound.run(c) : transaction.run(c));
    }

    /** Reads one row of a result set. */
    @FunctionalInterface
    interface RowReader {
        /**
         * @param rs a result set positioned on a row
         * @throws SQLException from the driver
         */
        void read(ResultSet rs) throws SQLException;
    }

    /**
     * Executes a prepared compound statement and hands every row of every result set it returns to {@code reader},
     * consuming all results (the driver's connection is ready for the next statement afterwards).
     *
     * @param ps     the bound statement
     * @param reader what to do with each row
     * @throws SQLException from the driver
     */
    static void execute(PreparedStatement ps, RowReader reader) throws SQLException {
        boolean isResultSet = ps.execute();
        while (true) {
            if (isResultSet) {
                try (ResultSet rs = ps.getResultSet()) {
                    while (rs.next()) {
                        reader.read(rs);
                    }
                }
            } else if (ps.getUpdateCount() == -1) {
                return;
            }
            isResultSet = ps.getMoreResults();
        }
    }
}
