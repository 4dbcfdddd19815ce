package dev.rowqueue.sqlite;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.SchemaException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sqlite.SQLiteConfig;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pooled connection's stale schema (docs/sqlite.md, "Through a connection pool"): a connection that read the schema
 * before another created a table, and that cannot take a read lock within its busy timeout because a writer holds the
 * file (rollback journal), gets "no such table" for the new table where a new connection gets "database is locked".
 * rowqueue looks the table up in the catalog on that connection and retries; a table dropped outside rowqueue is
 * still reported as missing.
 */
class SqliteStaleSchemaTest {
    /** The busy timeout of {@link #open}'s connections. */
    static final int BUSY_TIMEOUT_MS = 200;

    @TempDir
    Path dir;

    /** The same through the portable dialect, whose probe found where SQLite's message names the table. */
    @ParameterizedTest
    @ValueSource(strings = {SqliteDialect.NAME, "portable"})
    void a_table_created_meanwhile_is_found_once_the_lock_frees(String dialect) throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve(dialect + ".db");
        try (Connection kept = open(url); Connection creator = open(url); Connection holder = open(url)) {
            AtomicReference<Connection> next = new AtomicReference<>(kept);
            try (RowQueues rq = RowQueues.builder(handingOut(next)).dialect(dialect).retry(new RetryPolicy(30, Duration.ofMillis(20),
                    Duration.ofMillis(100))).build()) {
                next.set(creator); // the kept connection holds the schema from before the queue's tables
                WorkQueue q = rq.workQueue("fresh").create();
                next.set(kept);
                CompletableFuture<Void> released = holdLock(holder, BUSY_TIMEOUT_MS * 4);
                long id = q.enqueue("after the lock");
                released.join();
                assertTrue(id > 0);
                assertEquals(1, q.stats().ready());
            }
        }
    }

    @Test
    void a_table_dropped_outside_rowqueue_is_still_reported_missing() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("dropped.db");
        try (Connection kept = open(url); Connection outside = open(url)) {
            AtomicReference<Connection> next = new AtomicReference<>(kept);
            try (RowQueues rq = RowQueues.builder(handingOut(next)).build()) {
                WorkQueue q = rq.workQueue("gone").create();
                q.enqueue("before");
                String jobs = rq.queues().stream().filter(i -> i.name().equals("gone")).findFirst().orElseThrow()
                        .tables().get(0);
                try (Statement s = outside.createStatement()) {
                    s.execute("DROP TABLE " + jobs);
                }
                SchemaException e = assertThrows(SchemaException.class, () -> q.enqueue("after"));
                assertTrue(e.getMessage().contains("no such table"), e.getMessage());
                assertTrue(e.getMessage().contains("dropped outside rowqueue"), e.getMessage());
            }
        }
    }

    /** A file in rollback-journal mode (SQLite's default), with a short busy timeout. */
    static Connection open(String url) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.DELETE);
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        return config.createConnection(url);
    }

    /** Holds the file's exclusive lock (no reader gets in) for a while, from another thread. */
    private static CompletableFuture<Void> holdLock(Connection holder, int ms) throws SQLException {
        try (Statement s = holder.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
        }
        return CompletableFuture.runAsync(() -> {
            try (Statement s = holder.createStatement()) {
                Thread.sleep(ms);
                s.execute("COMMIT");
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Hands out whichever connection {@code next} holds, as a pool would, kept open: closing it does nothing. */
    private static SimpleDataSource handingOut(AtomicReference<Connection> next) {
        return new SimpleDataSource() {
            @Override
            public Connection getConnection() {
                Connection connection = next.get();
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("close")) {
                                return null;
                            }
                            try {
                                return method.invoke(connection, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
    }
}
