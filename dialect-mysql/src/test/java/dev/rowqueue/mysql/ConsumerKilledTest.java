package dev.rowqueue.mysql;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer whose connection is killed ({@code KILL CONNECTION}) loses nothing: killed in the middle of a claim,
 * its uncommitted leases are rolled back and the jobs are claimable at once, with no attempt counted; killed after its
 * claim committed (a consumer that died holding jobs), the jobs come back when the lease ends, with one failed
 * attempt, and its late ack is refused.
 */
class ConsumerKilledTest extends EmbeddedServerTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    @Override
    protected String database() {
        return "it_killed";
    }

    @Override
    protected MySqlTargets.Session session() {
        return new MySqlTargets.Session(MySqlTargets.READ_COMMITTED, "+00:00", false);
    }

    private static long connectionId(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void kill(long connectionId) throws SQLException {
        try (Connection admin = connect(EmbeddedMariaDb.Driver.MARIADB); Statement s = admin.createStatement()) {
            s.execute("KILL CONNECTION " + connectionId);
        }
    }


    /**
     * The consumer's claim (the last-insert-id claim, which waits for row locks) holds its first jobs locked and waits
     * for the last one, locked by an administrator; its connection is killed right then.
     */
    @ParameterizedTest
    @EnumSource(EmbeddedMariaDb.Driver.class)
    void a_consumer_killed_in_the_middle_of_a_claim_leases_nothing(EmbeddedMariaDb.Driver driver) throws Exception {
        String queue = name("mid", driver.ordinal());
        try (RowQueues rq = RowQueues.builder(pools.get(driver)).dialectOption(MySqlDialect.OPTION_CLAIM,
                "last-insert-id").retry(RetryPolicy.none()).build()) {
            WorkQueue q = rq.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(LEASE));
            List<Long> ids = q.enqueueAll(List.of("j1", "j2", "j3"), Enqueue.defaults());
            try (Connection admin = connect(driver); Connection consumer = connect(driver)) {
                admin.setAutoCommit(false);
                try (PreparedStatement lock = admin.prepareStatement("SELECT id FROM " + queue
                        + " WHERE id = ? FOR UPDATE")) {
                    lock.setLong(1, ids.get(2));
                    lock.executeQuery().close();
                }
                long consumerId = connectionId(consumer);
                consumer.setAutoCommit(false);
                CompletableFuture<List<Job>> claim = CompletableFuture.supplyAsync(() -> q.using(consumer).claim(3));
                awaitLockWait(driver, consumerId, claim);
                kill(consumerId);
                ExecutionException failed = assertThrows(ExecutionException.class, () -> claim.get(30, TimeUnit.SECONDS));
                assertTrue(failed.getCause() instanceof RowQueueException, failed.getCause().toString());
                admin.rollback();
            }
            List<Job> again = q.claim(3);
            assertEquals(ids, again.stream().map(Job::id).toList(), "every job is claimable at once");
            assertTrue(again.stream().allMatch(j -> j.failures() == 0), "a rolled-back claim counts no attempt");
        }
    }

    private void awaitLockWait(EmbeddedMariaDb.Driver driver, long connectionId, CompletableFuture<?> claim)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection watcher = connect(driver); PreparedStatement ps = watcher.prepareStatement("SELECT COUNT(*)"
                + " FROM information_schema.PROCESSLIST WHERE ID = ? AND COMMAND = 'Query' AND INFO LIKE 'UPDATE %'")) {
            ps.setLong(1, connectionId);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) == 1) {
                        TimeUnit.MILLISECONDS.sleep(200); // the update has locked the free jobs and waits for the last
                        return;
                    }
                }
                if (claim.isDone()) {
                    claim.get();
                    throw new AssertionError("the claim ended without waiting for the locked job");
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        StringBuilder seen = new StringBuilder();
        try (Connection watcher = connect(driver); Statement st = watcher.createStatement();
             ResultSet rs = st.executeQuery("SELECT ID, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST")) {
            while (rs.next()) {
                seen.append('\n').append(rs.getLong(1)).append(' ').append(rs.getString(2)).append(' ')
                        .append(rs.getString(3)).append(' ').append(rs.getString(4));
            }
        }
        throw new AssertionError("the consumer's claim (connection " + connectionId + ") never waited for the locked"
                + " job:" + seen);
    }

    @ParameterizedTest
    @CsvSource({"MARIADB, skip-locked", "MYSQL, skip-locked", "MARIADB, last-insert-id", "MYSQL, last-insert-id"})
    void the_jobs_of_a_consumer_killed_after_its_claim_come_back_after_the_lease(EmbeddedMariaDb.Driver driver,
                                                                                String claimPath) throws Exception {
        String queue = name("aft", driver.ordinal() + "_" + claimPath.charAt(0));
        try (RowQueues rq = RowQueues.builder(pools.get(driver)).dialectOption(MySqlDialect.OPTION_CLAIM, claimPath)
                .build()) {
            WorkQueue q = rq.workQueue(queue, WorkQueueOptions.defaults().withLeaseDuration(LEASE));
            List<Long> ids = q.enqueueAll(List.of("j1", "j2"), Enqueue.defaults());
            List<Job> held;
            try (Connection consumer = connect(driver)) {
                held = q.using(consumer).claim(2);
                assertEquals(ids, held.stream().map(Job::id).toList());
                kill(connectionId(consumer));
                assertThrows(RowQueueException.class, () -> q.using(consumer).ack(held.get(0)),
                        "the dead consumer cannot ack");
            }
            assertEquals(List.of(), q.claim(2), "the leases still hold");
            List<Job> back = q.claim(2, Duration.ofSeconds(30));
            assertEquals(ids, back.stream().map(Job::id).toList(), "back after the lease");
            assertTrue(back.stream().allMatch(j -> j.failures() == 1), "the lost lease counts one failed attempt");
            assertFalse(q.ack(held.get(0)), "an ack with the dead consumer's lease is refused");
            assertTrue(q.ack(back.get(0)) && q.ack(back.get(1)));
            assertEquals(0, q.stats().total());
        }
    }
}
