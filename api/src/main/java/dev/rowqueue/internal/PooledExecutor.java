package dev.rowqueue.internal;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.SqlErrorKind;
import dev.rowqueue.spi.SqlOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs each operation on a connection of its own from the data source: single statements in auto-commit mode,
 * the rest in a transaction, all at READ COMMITTED where the dialect asks for it
 * ({@link dev.rowqueue.spi.DialectPolicy#enforceReadCommitted},
 * {@link dev.rowqueue.spi.DialectPolicy#readCommittedStatements}) whatever the pool's default. Transient failures are
 * retried with jittered exponential backoff. A connection lost while a non-idempotent operation might have committed
 * is reported, not retried. A missing table that the catalog, read on the same connection, lists is a stale view of
 * the schema and is retried ({@link #staleSchema}).
 *
 * <p>The isolation a connection is handed out with is read once per physical connection ({@link IsolationCache}):
 * pools put a connection back to their configured default when it returns, and this executor puts back what it
 * changed. At a READ COMMITTED pool an operation therefore costs no isolation round trip at all; at a stricter pool it
 * costs two (set READ COMMITTED, and put the pool's level back).
 */
final class PooledExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(PooledExecutor.class);

    private final DataSource dataSource;
    private final Dialect dialect;
    private final RetryPolicy retry;
    private final IsolationCache isolations = new IsolationCache();
    private final HotRowTurns turns;
    /** The network timeout of every operation, in ms; 0 for none. */
    private final int timeoutMs;
    /** The deadline ({@link System#nanoTime()}) of the work one thread runs in a {@link #within} block. */
    private static final ThreadLocal<Long> DEADLINE = new ThreadLocal<>();
    /** Set once a connection refused a network timeout: the driver cannot bound waits, and is not asked again. */
    private volatile boolean unsupported;

    PooledExecutor(DataSource dataSource, Dialect dialect, RetryPolicy retry) {
        this(dataSource, dialect, retry, null, null);
    }

    /**
     * @param turns where writers of one hot row fail each other, the turns they take ({@link #run(String, String,
     *              SqlOp)}); {@code null} where they wait for each other
     */
    PooledExecutor(DataSource dataSource, Dialect dialect, RetryPolicy retry, HotRowTurns turns, Duration timeout) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.retry = retry;
        this.turns = turns;
        this.timeoutMs = timeout == null ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    }

    /**
     * Runs work whose database calls on this thread, retries included, end within {@code ms}: each waits for the
     * network at most the time left (if that is tighter than the executor's own bound), and none is retried once it is
     * up. A heartbeat must end before the lease it extends.
     *
     * @param ms   the bound
     * @param work the work
     * @param <R>  its result type
     * @return its result
     */
    static <R> R within(long ms, Supplier<R> work) {
        Long before = DEADLINE.get();
        DEADLINE.set(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms));
        try {
            return work.get();
        } finally {
            DEADLINE.set(before);
        }
    }

    /** @return the network timeout for an operation on this thread, 0 for none */
    private int timeoutMs() {
        Long deadline = DEADLINE.get();
        if (deadline == null) {
            return timeoutMs;
        }
        int left = (int) Math.max(1, Math.min(Integer.MAX_VALUE,
                TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        return timeoutMs == 0 ? left : Math.min(left, timeoutMs);
    }

    /** @return whether this thread's {@link #within} block is out of time */
    private static boolean outOfTime() {
        Long deadline = DEADLINE.get();
        return deadline != null && System.nanoTime() - deadline >= 0;
    }

    /** @return the connection's network timeout before, to put back, or -1 if none was set */
    private int bound(Connection c) {
        int ms = timeoutMs();
        if (ms == 0 || unsupported) {
            return -1;
        }
        try {
            int before = c.getNetworkTimeout();
            if (before != ms) {
                c.setNetworkTimeout(Runnable::run, ms);
            }
            return before;
        } catch (SQLFeatureNotSupportedException | UnsupportedOperationException | AbstractMethodError e) {
            unsupported = true;
            log.debug("the JDBC driver sets no network timeout; waits for the database are not bounded: {}",
                    e.toString());
            return -1;
        } catch (SQLException e) {
            log.debug("could not set a network timeout", e);
            return -1;
        }
    }

    private static void unbound(Connection c, int before) {
        if (before < 0) {
            return;
        }
        try {
            if (!c.isClosed()) {
                c.setNetworkTimeout(Runnable::run, before);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("could not put the network timeout back", e); // a broken connection is the pool's to evict
        }
    }

    @Override
    public <R> R run(String what, SqlOp<R> op) {
        return run(what, null, op);
    }

    @Override
    public <R> R run(String what, String hotRow, SqlOp<R> op) {
        HotRowTurns hot = hotRow == null ? null : turns;
        for (int attempt = 1; ; attempt++) {
            Phase phase = new Phase();
            try {
                if (hot == null) {
                    return once(op, phase);
                }
                R result;
                try (HotRowTurns.Turn turn = hot.take(hotRow)) {
                    result = once(op, phase);
                }
                hot.ended(hotRow, attempt);
                return result;
            } catch (SQLException e) {
                SqlErrorKind kind = dialect.classify(e);
                boolean duplicateRace = kind == SqlErrorKind.DUPLICATE_KEY && op.retriesDuplicateKey();
                boolean stale = phase.staleSchema; // set only for a missing table (staleSchema)
                UnknownCommitOutcomeException unknown = Errors.unknownOutcome(what, e, kind, phase.mayHaveCommitted,
                        op, dialect);
                if (unknown != null) {
                    throw unknown;
                }
                if ((kind.transientFailure() || duplicateRace || stale) && attempt < retry.maxAttempts()
                        && !outOfTime()) {
                    log.debug("{}: {} on attempt {}, retrying: {}", what, kind, attempt, Errors.describe(e));
                    backoff(attempt);
                    continue;
                }
                if (duplicateRace) {
                    throw new TransientRowQueueException(what + " met a duplicate key (a lost creation race, or an id the server gave twice) " + attempt
                            + " times: " + Errors.describe(e), e);
                }
                if (stale && phase.listed) {
                    throw new TransientRowQueueException(what + " met a table missing from the connection's view of"
                            + " the schema though the catalog lists it (a table created meanwhile, the new schema not"
                            + " read for a lock) " + attempt + " times: " + Errors.describe(e), e);
                }
                throw Errors.map(what + (attempt > 1 ? " (after " + attempt + " attempts)" : ""), e, kind, dialect);
            }
        }
    }

    /** Where an attempt got to, to tell a failure before commit from one during it. */
    private static final class Phase {
        boolean mayHaveCommitted;
        /** A missing table of this attempt is one the catalog lists, or one the look-up failed for. */
        boolean staleSchema;
        /** The catalog lists the missing table. */
        boolean listed;
    }

    /**
     * Whether a missing-table error is a stale view of the schema rather than a missing table: SQLite reports a table
     * created since a connection last read the schema as missing when that connection could not take a read lock
     * within its busy timeout to read the new schema (rollback journal, many writers), where a new connection would
     * report the lock timeout. The catalog, read on the same connection (which reads the new schema there), tells:
     * a table it lists is retried, and so is one the look-up failed for (on the same lock, which the portable dialect
     * may not know as one; where the retries run out, the table is reported missing); a table it does not list
     * (dropped outside rowqueue) is reported as missing at once. Only where the dialect finds the name in the error
     * ({@link dev.rowqueue.support.SqlErrors#missingTable}).
     */
    private void staleSchema(Connection c, SQLException e, Phase phase) {
        String table = dialect.classify(e) == SqlErrorKind.UNDEFINED_TABLE ? dialect.sqlErrors().missingTable(e)
                : null;
        if (table == null) {
            return;
        }
        String name = table.substring(table.lastIndexOf('.') + 1).replaceAll("[\"`\\[\\]]", "");
        try {
            phase.listed = SchemaManager.listed(c.getMetaData(), c.getCatalog(), name);
            phase.staleSchema = phase.listed;
        } catch (SQLException | RuntimeException lookup) {
            e.addSuppressed(lookup);
            phase.staleSchema = true;
        }
    }

    private <R> R once(SqlOp<R> op, Phase phase) throws SQLException {
        Connection c = dataSource.getConnection();
        R result;
        try {
            int before = bound(c);
            try {
                result = once(c, op, phase);
            } finally {
                unbound(c, before);
            }
        } catch (SQLException | RuntimeException | Error e) {
            if (e instanceof SQLException s) {
                staleSchema(c, s, phase);
            }
            try {
                c.close();
            } catch (SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // the work is done (committed, or its one statement answered): a connection that died since, which the
            // pool fails to reset on return, must not fail it, or it would be retried and done twice
            log.debug("closing a connection after its work was done failed", e);
        }
        return result;
    }

    private <R> R once(Connection c, SqlOp<R> op, Phase phase) throws SQLException {
        dialect.prepareConnection(c);
        if (op.singleStatement()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            int isolation = dialect.policy().readCommittedStatements() ? readCommitted(c) : -1;
            try {
                phase.mayHaveCommitted = true;
                return op.run(c);
            } finally {
                restoreIsolation(c, isolation);
            }
        }
        boolean autoCommit = c.getAutoCommit();
        int isolation = -1; // -1: not changed, nothing to restore
        try {
            if (dialect.policy().enforceReadCommitted() || dialect.policy().readCommittedStatements()) {
                isolation = readCommitted(c);
            }
            if (autoCommit) {
                dialect.beginTransaction(c);
            }
            R result;
            try {
                result = op.run(c);
            } catch (SQLException | RuntimeException | Error e) {
                rollbackQuietly(c, e);
                throw e;
            }
            phase.mayHaveCommitted = true;
            c.commit();
            return result;
        } finally {
            restore(c, autoCommit, isolation);
        }
    }

    /**
     * Sets READ COMMITTED on a connection in auto-commit mode or between transactions, if the level it was handed
     * out with (read once per physical connection) is another.
     *
     * @return the level to put back, or -1 if nothing changed
     */
    private int readCommitted(Connection c) throws SQLException {
        int current = isolations.handedOut(c);
        if (current == Connection.TRANSACTION_READ_COMMITTED || current == Connection.TRANSACTION_NONE) {
            return -1;
        }
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return current;
    }

    private void restoreIsolation(Connection c, int isolation) {
        if (isolation == -1) {
            return;
        }
        try {
            c.setTransactionIsolation(isolation);
        } catch (SQLException | RuntimeException e) {
            // never fails the operation, which may have committed; a broken connection is the pool's to evict
            log.debug("could not restore the isolation level", e);
        }
    }

    static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException suppressed) {
            cause.addSuppressed(suppressed);
        }
    }

    /** Puts back what {@link #once} changed, and nothing else (each call may be a round trip). */
    private void restore(Connection c, boolean autoCommit, int isolation) {
        try {
            if (autoCommit) {
                c.setAutoCommit(true);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("could not restore connection settings", e);
        }
        restoreIsolation(c, isolation);
    }

    private void backoff(int attempt) {
        long capNanos = retry.backoffCap(attempt).toNanos();
        if (capNanos <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(capNanos + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransientRowQueueException("interrupted while backing off before a retry", e);
        }
    }
}
