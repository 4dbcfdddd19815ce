package dev.rowqueue.internal;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.spi.TransactionBinding;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link RowQueues.Builder#transactionBinding}: operations join the calling thread's transaction when the binding has
 * one and commit or roll back with it; without one they commit on their own; workers never join.
 */
class TransactionBindingTest {

    /** A framework's transaction in miniature: one connection per thread, set while a transaction is open. */
    static final class ThreadBinding implements TransactionBinding {
        final ThreadLocal<Connection> current = new ThreadLocal<>();
        final AtomicInteger handedOut = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();
        final Set<String> askingThreads = ConcurrentHashMap.newKeySet();
        volatile DataSource askedFor;

        @Override
        public Connection currentConnection(DataSource dataSource) {
            askedFor = dataSource;
            askingThreads.add(Thread.currentThread().getName());
            Connection c = current.get();
            if (c != null) {
                handedOut.incrementAndGet();
            }
            return c;
        }

        @Override
        public void release(Connection connection, DataSource dataSource) {
            assertSame(current.get(), connection, "the connection handed out is the one released");
            released.incrementAndGet();
        }
    }

    interface Body {
        void run() throws Exception;
    }

    private final JdbcDataSource h2 = new JdbcDataSource();
    private final ThreadBinding binding = new ThreadBinding();
    private RowQueues rq;

    @BeforeEach
    void setUp() throws SQLException {
        h2.setURL("jdbc:h2:mem:txbinding_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
        }
        rq = RowQueues.builder(h2).transactionBinding(binding).build();
    }

    @AfterEach
    void tearDown() throws SQLException {
        rq.close();
        try (Connection c = h2.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    /** Runs {@code body} in a transaction the binding exposes, then commits or rolls back. */
    private void inTransaction(boolean commit, Body body) throws Exception {
        try (Connection c = h2.getConnection()) {
            c.setAutoCommit(false);
            binding.current.set(c);
            try {
                body.run();
            } finally {
                binding.current.remove();
                if (commit) {
                    c.commit();
                } else {
                    c.rollback();
                }
            }
        }
    }

    private void insertOrder(int id) throws SQLException {
        try (Statement s = binding.current.get().createStatement()) {
            s.executeUpdate("INSERT INTO orders VALUES (" + id + ")");
        }
    }

    private int orders() throws SQLException {
        try (Connection c = h2.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM orders")) {
            r.next();
            return r.getInt(1);
        }
    }

    /** Reads on another thread, which has no transaction. */
    private static <T> T elsewhere(java.util.function.Supplier<T> read) throws Exception {
        return CompletableFuture.supplyAsync(read).get(1, TimeUnit.MINUTES);
    }

    @Test
    void writes_in_the_callers_transaction_roll_back_with_it() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        RingQueue ring = rq.ring("recent", 5);
        Counters counters = rq.counters("seqs");
        inTransaction(false, () -> {
            insertOrder(1);
            q.enqueue("order 1");
            q.enqueueAll(List.of("a", "b"), Enqueue.defaults());
            ring.push("g", "order 1");
            assertEquals(1, counters.increment("orders"));
            assertEquals(3, q.stats().total(), "the transaction sees its own jobs");
            assertEquals(0, elsewhere(() -> q.stats().total()), "nothing is committed before the caller commits");
        });
        assertEquals(0, orders());
        assertEquals(0, q.stats().total(), "the jobs rolled back with the business write");
        assertEquals(0, ring.size("g"));
        assertEquals(0, counters.get("orders"));
        assertEquals(5, binding.handedOut.get());
        assertEquals(binding.handedOut.get(), binding.released.get(), "every connection handed out is released");
        assertSame(h2, binding.askedFor, "the binding is asked for the instance's data source");
    }

    @Test
    void writes_in_the_callers_transaction_commit_with_it() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        RingQueue ring = rq.ring("recent", 5);
        inTransaction(true, () -> {
            insertOrder(1);
            q.enqueue("order 1");
            ring.push("g", "order 1");
        });
        assertEquals(1, orders());
        assertEquals(List.of("order 1"), q.claim(10).stream().map(Job::payload).toList());
        assertEquals(1, ring.size("g"));
    }

    @Test
    void without_a_transaction_an_operation_commits_on_its_own() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        q.enqueue("alone");
        assertEquals(1, elsewhere(() -> q.stats().total()));
        assertTrue(binding.askingThreads.contains(Thread.currentThread().getName()), "the binding was asked");
        assertEquals(0, binding.handedOut.get());
        assertEquals(0, binding.released.get(), "nothing to release when the binding had no connection");
    }

    @Test
    void a_claim_in_a_transaction_rolled_back_leaves_the_job_ready() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        long id = q.enqueue("x");
        inTransaction(false, () -> {
            List<Job> jobs = q.claim(5);
            assertEquals(List.of(id), jobs.stream().map(Job::id).toList());
            assertEquals(1, q.stats().leased());
        });
        assertEquals(1, q.stats().ready(), "the lease rolled back with the caller's transaction");
        assertEquals(List.of(id), q.claim(5).stream().map(Job::id).toList());
    }

    @Test
    void a_failed_operation_still_releases_the_connection() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        Connection closed = h2.getConnection();
        closed.close();
        binding.current.set(closed);
        try {
            RowQueueException e = assertThrows(RowQueueException.class, () -> q.enqueue("x"));
            assertTrue(e.getMessage().contains("caller's connection"), e.getMessage());
        } finally {
            binding.current.remove();
        }
        assertEquals(1, binding.handedOut.get());
        assertEquals(1, binding.released.get());
        assertEquals(0, q.stats().total());
    }

    @Test
    void a_worker_never_joins_a_transaction_not_even_on_a_handler_thread_that_has_one() throws Exception {
        WorkQueue q = rq.workQueue("jobs");
        List<Long> ids = q.enqueueAll(List.of("a", "b", "c", "d"), Enqueue.defaults());
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        // a handler inside "its own transaction" whose connection is unusable: a worker call that joined it would fail
        Connection closed = h2.getConnection();
        closed.close();
        try (Worker w = q.worker(job -> {
            binding.current.set(closed);
            try {
                if (runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet() == 1) {
                    assertTrue(job.retryAfter(Duration.ZERO, "once more"), "the retry went through");
                }
            } finally {
                binding.current.remove();
            }
        }, WorkerOptions.defaults().withThreads(2).withHeartbeat(Duration.ofMillis(20))).start()) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (q.stats().total() > 0) {
                if (System.nanoTime() > deadline) {
                    fail("jobs left after a minute: " + q.stats() + ", runs " + runs);
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        for (long id : ids) {
            assertNotNull(runs.get(id), "job " + id + " ran");
            assertEquals(2, runs.get(id).get(), "job " + id + " ran twice: retried once, then acked");
        }
        assertEquals(List.of(), binding.askingThreads.stream().filter(n -> n.startsWith("rowqueue-worker")).toList(),
                "no worker thread asks the binding");
        assertEquals(0, binding.handedOut.get());
    }
}
