package dev.rowqueue.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writers of one hot row (a ring group's head and slots, a counter, a work queue's claim gate, cursors and job rows)
 * taking turns within this JVM, for databases where a second writer of a row fails instead of waiting (the dialect
 * answers {@link dev.rowqueue.spi.DialectPolicy#hotRowTurns()}): each attempt of such an operation holds a fair lock
 * of its row, per database, from before its transaction begins until after it commits or rolls back, so writers in
 * this JVM never meet in the database; writers in other processes still can, and are retried
 * ({@link PooledExecutor}'s backoff with jitter). Every instance on one database in this JVM shares the
 * turns. Locks are striped by the row's hash (rows that share a stripe take turns too, which is safe).
 *
 * <p>It counts what it costs: operations that took a turn, the attempts they needed (more than one where a writer
 * of another process got in between), and the turns that had to wait. These are logged at DEBUG.
 */
final class HotRowTurns {
    private static final Logger log = LoggerFactory.getLogger(HotRowTurns.class);
    private static final int STRIPES = 64;
    private static final ConcurrentHashMap<String, HotRowTurns> SHARED = new ConcurrentHashMap<>();

    private final String database;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong waited = new AtomicLong();

    private HotRowTurns(String database) {
        this.database = database;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock(true);
        }
    }

    /**
     * @param database the database's identity
     * @return the turns every instance on that database in this JVM shares
     */
    static HotRowTurns of(String database) {
        return SHARED.computeIfAbsent(database, HotRowTurns::new);
    }

    /**
     * Waits for the row's turn.
     *
     * @param row the hot row, e.g. {@code "ring recent_views g"}
     * @return the turn, to {@link Turn#close} after the attempt
     */
    Turn take(String row) {
        ReentrantLock lock = stripes[Math.floorMod(row.hashCode(), STRIPES)];
        if (!lock.tryLock()) {
            waited.incrementAndGet();
            lock.lock();
        }
        attempts.incrementAndGet();
        return lock::unlock;
    }

    /**
     * Records that an operation on a hot row ended after {@code tries} attempts.
     *
     * @param row   the row
     * @param tries its attempts
     */
    void ended(String row, int tries) {
        long ops = operations.incrementAndGet();
        if (tries > 1 || ops % 100 == 0) {
            log.debug("rowqueue: hot row '{}' of {}: {} attempts; so far {} operations took turns in {} attempts, {}"
                    + " waited for their turn", row, database, tries, ops, attempts.get(), waited.get());
        }
    }

    /** @return operations that took turns so far */
    long operations() {
        return operations.get();
    }

    /** @return their attempts so far */
    long attempts() {
        return attempts.get();
    }

    /** A held turn. */
    interface Turn extends AutoCloseable {
        @Override
        void close();
    }
}
