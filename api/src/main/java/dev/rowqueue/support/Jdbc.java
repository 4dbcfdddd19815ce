package dev.rowqueue.support;

import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Small JDBC helpers for stores: row mapping of rowqueue's tables and the savepoint-guarded insert used to create
 * missing rows without aborting the surrounding transaction.
 */
public final class Jdbc {

    /** The columns {@link #job(ResultSet)} reads, in a select list. */
    public static final String JOB_COLUMNS =
            "id, payload, prio, attempts, enqueued_ms, due_ms, last_error, lease_token, job_key";
    /** The columns {@link #entry(ResultSet)} reads, in a select list. */
    public static final String ENTRY_COLUMNS = "seq, payload, pushed_ms";

    private Jdbc() {
    }

    /**
     * Which database a connection reaches, as far as this JVM can tell: the URL and the user its driver reports.
     * Instances of {@code RowQueues} on one database share what is kept per database (the portable dialect's probe
     * answers, the lock that serialises schema creation).
     *
     * @param md a connection's metadata
     * @return the URL and the user, or the connection's class where the driver reports no URL
     * @throws SQLException from the driver
     */
    public static String databaseIdentity(java.sql.DatabaseMetaData md) throws SQLException {
        String url = md.getURL();
        return (url == null ? md.getConnection().getClass().getName() : url) + " as " + md.getUserName();
    }

    /**
     * Maps a row selected with {@link #JOB_COLUMNS}.
     *
     * @param rs      a result set on a row
     * @param dialect reads the key column ({@link Dialect#readKey})
     * @return the job; a job without lease token has no lease end
     * @throws SQLException from the driver
     */
    public static Job job(ResultSet rs, Dialect dialect) throws SQLException {
        long token = rs.getLong("lease_token");
        boolean leased = !rs.wasNull();
        return new Job(rs.getLong("id"), text(rs.getString("payload")), rs.getInt("prio"), rs.getInt("attempts"),
                Instant.ofEpochMilli(rs.getLong("enqueued_ms")),
                leased ? Instant.ofEpochMilli(rs.getLong("due_ms")) : null, rs.getString("last_error"),
                leased ? token : 0L, dialect.readKey(rs, "job_key"));
    }

    /**
     * Maps a row selected with {@link #ENTRY_COLUMNS}.
     *
     * @param rs a result set on a row
     * @return the entry
     * @throws SQLException from the driver
     */
    public static RingEntry entry(ResultSet rs) throws SQLException {
        return new RingEntry(rs.getLong("seq"), text(rs.getString("payload")),
                Instant.ofEpochMilli(rs.getLong("pushed_ms")));
    }

    /**
     * Reads payload text; a {@code null} (Oracle stores '' as NULL) is the empty string.
     *
     * @param value a column value
     * @return the text
     */
    public static String text(String value) {
        return value == null ? "" : value;
    }

    /**
     * Reads every job of an executed query.
     *
     * @param ps      a prepared, bound query selecting {@link #JOB_COLUMNS}
     * @param dialect reads the key column
     * @return the jobs in result order
     * @throws SQLException from the driver
     */
    public static List<Job> jobs(PreparedStatement ps, Dialect dialect) throws SQLException {
        return all(ps, rs -> job(rs, dialect));
    }

    /**
     * Runs a query selecting {@link #ENTRY_COLUMNS} and maps every row with {@link #entry(ResultSet)}.
     *
     * @param ps a prepared, bound query selecting {@link #ENTRY_COLUMNS}
     * @return the entries in result order
     * @throws SQLException from the driver
     */
    public static List<RingEntry> entries(PreparedStatement ps) throws SQLException {
        return all(ps, Jdbc::entry);
    }

    /**
     * Reads the first column of the first row as a long, then reads the result to its end.
     * <p>
     * Reading to the end matters for a write with {@code RETURNING} in auto-commit mode: SQLite writes on the first
     * step and commits only when the statement runs to its end. Closed early, the statement is reset, and a commit that
     * fails there (the lock timeout of a rollback journal while readers hold the file) rolls the write back without an
     * error (sqlite-jdbc discards what the reset returns), so the caller would keep a value that was never stored. The
     * last {@code next()} reports that failure instead (docs/sqlite.md, "Through a connection pool").
     *
     * @param ps a prepared, bound query
     * @return the value, or empty if there is no row or it is NULL
     * @throws SQLException from the driver, including a commit that failed at the end of the result
     */
    public static OptionalLong firstLong(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return OptionalLong.empty();
            }
            long v = rs.getLong(1);
            OptionalLong first = rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
            while (rs.next()) {
                // to the end: where an auto-commit write commits, and a failed commit is reported
            }
            return first;
        }
    }

    /**
     * Reads the first column of every row as longs.
     *
     * @param ps a prepared, bound query
     * @return the values in result order
     * @throws SQLException from the driver
     */
    public static List<Long> longs(PreparedStatement ps) throws SQLException {
        return all(ps, rs -> rs.getLong(1));
    }

    /** Maps the current row of a result set. */
    @FunctionalInterface
    private interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** Runs a query and maps every row, in result order. */
    private static <T> List<T> all(PreparedStatement ps, Row<T> row) throws SQLException {
        List<T> values = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                values.add(row.map(rs));
            }
        }
        return values;
    }

    /**
     * Runs a bound insert that a unique key may refuse, without a savepoint: in a transaction, a refusal leaves it for
     * the caller to roll back (PostgreSQL aborts it).
     *
     * @param insert  a prepared, bound insert
     * @param dialect classifies the violation
     * @return {@code true} if inserted, {@code false} if a unique key refused the row
     * @throws SQLException any other error
     */
    public static boolean inserted(PreparedStatement insert, Dialect dialect) throws SQLException {
        try {
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (dialect.classify(e) == SqlErrorKind.DUPLICATE_KEY) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Runs an insert that may lose a creation race, under a savepoint: a unique-key violation rolls back to the
     * savepoint (the transaction stays usable, even on PostgreSQL) and returns {@code false}; the caller then finds
     * the row the winner created.
     *
     * @param connection a connection with auto-commit off
     * @param dialect    classifies the violation
     * @param insert     the insert to run
     * @return {@code true} if inserted, {@code false} if the row already existed
     * @throws SQLException any other error
     */
    public static boolean insertUnlessExists(Connection connection, Dialect dialect, SqlAction insert)
            throws SQLException {
        Savepoint sp;
        try {
            sp = connection.setSavepoint();
        } catch (java.sql.SQLFeatureNotSupportedException e) {
            return insertOrRunAgain(dialect, insert);
        }
        try {
            insert.run();
        } catch (SQLException e) {
            if (dialect.classify(e) != SqlErrorKind.DUPLICATE_KEY) {
                throw e;
            }
            connection.rollback(sp);
            return false;
        }
        release(connection, dialect, sp);
        return true;
    }

    /**
     * {@link #insertUnlessExists} where the driver has no savepoints: a lost creation race fails the whole transaction
     * as a serialization failure (SQLState 40001, the duplicate key as its cause), which the core rolls back and runs
     * again; the next attempt finds the row the winner created.
     */
    private static boolean insertOrRunAgain(Dialect dialect, SqlAction insert) throws SQLException {
        try {
            insert.run();
            return true;
        } catch (SQLException e) {
            if (dialect.classify(e) != SqlErrorKind.DUPLICATE_KEY) {
                throw e;
            }
            throw new java.sql.SQLTransactionRollbackException("another transaction created the row at the same"
                    + " moment, and the driver has no savepoints to go on without it: the transaction runs again",
                    "40001", e);
        }
    }

    /**
     * Releases a savepoint. A driver that cannot release one is ignored (the savepoint ends with the transaction
     * anyway), but not a failure that tells the transaction is gone: on MariaDB Galera a transaction that lost
     * certification to another node's write fails on its next statement, whatever it is, and when that statement is
     * this release, swallowing the error made the caller commit an empty transaction and report an insert that never
     * happened (a unique enqueue returned the id of a job that did not exist).
     */
    private static void release(Connection connection, Dialect dialect, Savepoint sp) throws SQLException {
        try {
            connection.releaseSavepoint(sp);
        } catch (java.sql.SQLFeatureNotSupportedException | UnsupportedOperationException e) {
            // the driver cannot release savepoints
        } catch (SQLException e) {
            SqlErrorKind kind = dialect.classify(e);
            if (kind == SqlErrorKind.ROLLED_BACK || kind == SqlErrorKind.LOCK_TIMEOUT
                    || kind == SqlErrorKind.CONNECTION) {
                throw e;
            }
            // another refusal to release: the savepoint ends with the transaction anyway
        }
    }

    /**
     * @param count the number of parameters
     * @param name  their common prefix
     * @return {@code :name0, :name1, ...}
     */
    public static String parameterList(int count, String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < count; i++) {
            b.append(i == 0 ? ":" : ", :").append(name).append(i);
        }
        return b.toString();
    }

    /**
     * Binds {@code :name0 ... :nameN} of a {@link #parameterList} to ids.
     *
     * @param binder the binder
     * @param name   the prefix
     * @param ids    the values
     * @return the binder
     * @throws SQLException from the driver
     */
    public static Sql.Binder bindList(Sql.Binder binder, String name, List<Long> ids) throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            binder.set(name + i, ids.get(i));
        }
        return binder;
    }

    /** A piece of JDBC work without a result. */
    @FunctionalInterface
    public interface SqlAction {
        /**
         * @throws SQLException from the driver
         */
        void run() throws SQLException;
    }

    /**
     * The driver's connection behind pool proxies and other wrappers: the innermost connection reached through
     * {@code unwrap(Connection.class)} (a few levels at most), or the last wrapper that does not unwrap. Pools hand
     * out a new proxy per borrowing around the same physical connection, so this is the key for settings a dialect
     * or the core applies once per physical connection.
     *
     * @param c a connection, possibly a proxy
     * @return the innermost connection reachable, possibly {@code c} itself
     */
    public static Connection physicalConnection(Connection c) {
        Connection current = c;
        for (int i = 0; i < 8; i++) {
            Connection inner;
            try {
                inner = current.isWrapperFor(Connection.class) ? current.unwrap(Connection.class) : current;
            } catch (SQLException | RuntimeException | AbstractMethodError e) {
                return current; // a wrapper that cannot unwrap is its own key
            }
            if (inner == null || inner == current) {
                return current;
            }
            current = inner;
        }
        return current;
    }
}
