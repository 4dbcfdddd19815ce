package dev.rowqueue.portable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks a database how a second writer of one row ends when the first one commits, on two connections and a private
 * scratch table {@code rq_probe_<random>_h}: it waits and then succeeds (row locks: nothing to do), it fails at once
 * (multi-version engines without row locks), or it waits and then fails (engines that report a write-write conflict
 * as a serialization failure even at READ COMMITTED). Where it fails, each pessimistic lock form is tried the same
 * way ({@link #LOCK_FORMS}: {@code SELECT ... FOR UPDATE}, {@code ... FOR UPDATE WITH LOCK}, an {@code UPDATE} that
 * changes nothing): a form helps if the second transaction, taking it before its write, waits for the first and then
 * writes. Nothing here depends on the product's name. The answer is kept per database for the JVM's lifetime; a probe
 * that cannot run (one connection at a time, say) answers {@link Answer#UNKNOWN}.
 */
final class HotRowProbe {
    private static final Logger log = LoggerFactory.getLogger(HotRowProbe.class);

    /** How long a second writer may take before it counts as waiting for the first. */
    private static final long WAIT_MS = 500;
    /** How long a waiting second writer is given once the first has committed. */
    private static final long SETTLE_S = 30;
    /** The lock forms tried, {@code {table}} standing for the scratch table. */
    static final List<String> LOCK_FORMS = List.of(
            "SELECT v FROM {table} WHERE k = 1 FOR UPDATE",
            "SELECT v FROM {table} WHERE k = 1 FOR UPDATE WITH LOCK",
            "UPDATE {table} SET v = v WHERE k = 1");

    /** How a second writer of a row ends. */
    enum Outcome {
        /** It waits for the first writer and then writes. */
        WAITS,
        /** It fails at once. */
        FAILS_AT_ONCE,
        /** It waits for the first writer and fails when that one commits. */
        FAILS_AFTER_WAIT,
        /** Not asked, or the probe could not run. */
        UNKNOWN
    }

    /**
     * @param outcome  how a plain second writer ends
     * @param lockForm the first {@linkplain #LOCK_FORMS lock form} after which a second writer waits and then writes,
     *                 or {@code null} if none (or none was needed)
     */
    record Answer(Outcome outcome, String lockForm) {
        static final Answer UNKNOWN = new Answer(Outcome.UNKNOWN, null);

        /** @return whether writers of one hot row fail each other, so that they should take turns */
        boolean conflicts() {
            return outcome == Outcome.FAILS_AT_ONCE || outcome == Outcome.FAILS_AFTER_WAIT;
        }

        @Override
        public String toString() {
            return switch (outcome) {
                case WAITS -> "a second writer of a row waits for the first";
                case UNKNOWN -> "not known how two writers of a row meet";
                default -> "a second writer of a row fails " + (outcome == Outcome.FAILS_AT_ONCE ? "at once"
                        : "when the first commits") + (lockForm == null ? ", and no lock form makes it wait"
                        : ", unless it first runs " + lockForm.replace("{table}", "<table>"));
            };
        }
    }

    private static final ConcurrentHashMap<String, Answer> ANSWERS = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<String, Object> PROBING = new ConcurrentHashMap<>();

    private HotRowProbe() {
    }

    /**
     * @param dataSource the database
     * @param database   its identity ({@link dev.rowqueue.support.Jdbc#databaseIdentity})
     * @return the answer, asked once per database in this JVM
     */
    static Answer of(DataSource dataSource, String database) {
        Answer known = ANSWERS.get(database);
        if (known != null) {
            return known;
        }
        synchronized (PROBING.computeIfAbsent(database, k -> new Object())) {
            known = ANSWERS.get(database);
            if (known == null) {
                known = ask(dataSource);
                log.debug("rowqueue: {}: {}", database, known);
                ANSWERS.put(database, known);
            }
            return known;
        }
    }

    /** Asks without caching. */
    static Answer ask(DataSource dataSource) {
        String table = "rq_probe_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL) + "_h";
        ExecutorService other = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "rowqueue-hot-row-probe");
            t.setDaemon(true);
            return t;
        });
        try (Connection a = dataSource.getConnection(); Connection b = dataSource.getConnection()) {
            exec(a, "CREATE TABLE " + table + " (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k))");
            try {
                exec(a, "INSERT INTO " + table + " (k, v) VALUES (1, 0)");
                Outcome plain = meet(a, b, table, null, other);
                String form = null;
                if (plain == Outcome.FAILS_AT_ONCE || plain == Outcome.FAILS_AFTER_WAIT) {
                    for (String f : LOCK_FORMS) {
                        if (meet(a, b, table, f.replace("{table}", table), other) == Outcome.WAITS) {
                            form = f;
                            break;
                        }
                    }
                }
                return new Answer(plain, form);
            } finally {
                reset(a);
                reset(b);
                try {
                    exec(a, "DROP TABLE " + table);
                } catch (SQLException e) {
                    log.debug("rowqueue: could not drop probe table {}: {}", table, e.toString());
                }
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("rowqueue: could not ask how two writers of a row meet: {}", e.toString());
            return Answer.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.UNKNOWN;
        } finally {
            other.shutdownNow();
        }
    }

    /**
     * One meeting: {@code a} takes the lock form (if any) and writes without committing; {@code b}, on another
     * thread, takes the lock form and writes; {@code a} commits after {@link #WAIT_MS} if {@code b} still runs.
     */
    private static Outcome meet(Connection a, Connection b, String table, String lockForm, ExecutorService other)
            throws SQLException, InterruptedException {
        a.setAutoCommit(false);
        b.setAutoCommit(false);
        try {
            if (lockForm != null) {
                try {
                    exec(a, lockForm);
                } catch (SQLException refused) {
                    return Outcome.UNKNOWN; // the engine does not accept this form
                }
            }
            exec(a, "UPDATE " + table + " SET v = v + 1 WHERE k = 1");
            Future<?> second = other.submit(() -> {
                if (lockForm != null) {
                    exec(b, lockForm);
                }
                exec(b, "UPDATE " + table + " SET v = v + 1 WHERE k = 1");
                return null;
            });
            try {
                second.get(WAIT_MS, TimeUnit.MILLISECONDS);
                return Outcome.WAITS; // no wait and no failure: the engine serialises writers some other way
            } catch (ExecutionException e) {
                return Outcome.FAILS_AT_ONCE;
            } catch (TimeoutException e) {
                a.commit();
                try {
                    second.get(SETTLE_S, TimeUnit.SECONDS);
                    return Outcome.WAITS;
                } catch (ExecutionException failed) {
                    return Outcome.FAILS_AFTER_WAIT;
                } catch (TimeoutException stuck) {
                    second.cancel(true);
                    return Outcome.UNKNOWN;
                }
            }
        } finally {
            reset(a);
            reset(b);
        }
    }

    private static void reset(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            log.debug("rowqueue: a probe connection could not be reset: {}", e.toString());
        }
    }

    /** Runs one statement. */
    static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
