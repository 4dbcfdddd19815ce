package dev.rowqueue.sqlite;

import dev.rowqueue.Counters;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.SimpleDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A write with {@code RETURNING} in auto-commit mode whose commit is busy (docs/sqlite.md, "Through a connection
 * pool"): in rollback-journal mode (connections as {@link SqliteStaleSchemaTest#open} makes them, busy timeout
 * 200 ms) the commit needs the file's exclusive lock, which a reader holding its shared lock past the busy timeout
 * denies. SQLite then rolls the write back; read only to its first row, the driver would hand out the returned value
 * anyway (the reset that commits it discards the error), and the next caller would get the same value. Read to the
 * end, the failed commit is an error that rowqueue retries.
 */
class SqliteReturningCommitTest {
    @TempDir
    Path dir;

    @Test
    void an_increment_whose_commit_is_busy_is_retried_not_handed_out() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("busy-commit.db");
        SimpleDataSource ds = new SimpleDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return SqliteStaleSchemaTest.open(url);
            }
        };
        try (RowQueues rq = RowQueues.builder(ds).retry(new RetryPolicy(30, Duration.ofMillis(20),
                Duration.ofMillis(100))).build(); Connection reader = SqliteStaleSchemaTest.open(url)) {
            Counters c = rq.counters("hits");
            assertEquals(1, c.increment("hot"));
            CompletableFuture<Void> released = holdSharedLock(reader, SqliteStaleSchemaTest.BUSY_TIMEOUT_MS * 4);
            long second = c.increment("hot");
            released.join();
            assertEquals(c.get("hot"), second, "the value handed out is the one stored");
            assertEquals(2, second);
            assertEquals(3, c.increment("hot"));
        }
    }

    /** Holds a shared lock (a read transaction that has read) for a while, releasing it from another thread. */
    private static CompletableFuture<Void> holdSharedLock(Connection reader, int ms) throws SQLException {
        reader.setAutoCommit(false);
        try (Statement s = reader.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
            rs.next();
        }
        return CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(ms);
                reader.commit();
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
