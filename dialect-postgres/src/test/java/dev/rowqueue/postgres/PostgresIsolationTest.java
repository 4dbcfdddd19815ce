package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import dev.rowqueue.testkit.InterceptingDataSource;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pools whose default isolation is stricter than READ COMMITTED (issue 16): rowqueue's operations run at READ
 * COMMITTED anyway, put the pool's level back, and at a READ COMMITTED pool read the level once per physical
 * connection, not once per operation.
 */
class PostgresIsolationTest {

    private static final int PRODUCERS = 8;
    private static final int PUSHES = 200;

    /** Counts the driver's isolation calls (pgjdbc: a round trip each). */
    private static final class IsolationCalls extends InterceptingDataSource {
        final AtomicLong reads = new AtomicLong();
        final AtomicLong writes = new AtomicLong();

        IsolationCalls(HikariDataSource pool) {
            super(pool);
        }

        @Override
        protected Object aroundConnection(Method method, Object[] args, Call call) throws Throwable {
            if (method.getName().equals("getTransactionIsolation")) {
                reads.incrementAndGet();
            } else if (method.getName().equals("setTransactionIsolation")) {
                writes.incrementAndGet();
            }
            return call.proceed();
        }
    }

    private static HikariDataSource pool(String prefix, String isolation) {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);
        return server.pool(server.newDatabase(prefix), 24, 10_000, isolation);
    }

    /**
     * 8 producers push 200 each on one group; every push must succeed and every entry be there, in order. Retries
     * are off, so a single serialization failure would surface (with the default 8 attempts, 1 to 9 pushes of such a
     * run failed on a loaded machine before the fix; on an idle one the retries could hide it).
     */
    private static void eightProducersOnOneGroup(javax.sql.DataSource ds) throws Exception {
        try (RowQueues rq = RowQueues.builder(ds).dialectOption("wakeup", "poll")
                .retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build()) {
            RingQueue ring = rq.ring("iso_ring", PRODUCERS * PUSHES);
            ExecutorService threads = Executors.newFixedThreadPool(PRODUCERS);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int p = 0; p < PRODUCERS; p++) {
                    int producer = p;
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < PUSHES; i++) {
                            try {
                                ring.push("g", producer + ":" + i);
                            } catch (RuntimeException e) {
                                failures.add(e);
                            }
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            assertEquals(List.of(), failures.stream().map(Throwable::toString).toList(), "no push surfaced an error");
            List<RingEntry> entries = ring.oldestFirst("g");
            assertEquals(PRODUCERS * PUSHES, entries.size(), "none lost");
            Set<String> payloads = new HashSet<>();
            for (int i = 0; i < entries.size(); i++) {
                assertEquals(i + 1, entries.get(i).seq(), "consecutive sequence numbers");
                assertTrue(payloads.add(entries.get(i).payload()), "no payload twice");
            }
        }
    }

    @Test
    void eight_producers_on_one_ring_group_at_a_repeatable_read_pool_push_1600_times_without_an_error()
            throws Exception {
        try (HikariDataSource pool = pool("iso_rr", "TRANSACTION_REPEATABLE_READ")) {
            eightProducersOnOneGroup(pool);
            try (Connection c = pool.getConnection()) {
                assertEquals(Connection.TRANSACTION_REPEATABLE_READ, c.getTransactionIsolation(),
                        "the pool's level is put back for the application");
            }
        }
    }

    @Test
    void eight_producers_on_one_ring_group_at_a_serializable_pool_push_1600_times_without_an_error()
            throws Exception {
        try (HikariDataSource pool = pool("iso_ser", "TRANSACTION_SERIALIZABLE")) {
            eightProducersOnOneGroup(pool);
        }
    }

    @Test
    void at_a_read_committed_pool_the_level_is_read_once_per_physical_connection_and_never_set() throws Exception {
        try (HikariDataSource pool = pool("iso_rc", null)) {
            IsolationCalls calls = new IsolationCalls(pool);
            eightProducersOnOneGroup(calls);
            assertEquals(0, calls.writes.get(), "nothing to change at READ COMMITTED");
            assertTrue(calls.reads.get() <= 24, "at most one read per physical connection of the pool: "
                    + calls.reads.get() + " for more than 1,600 operations");
        }
    }

    @Test
    void at_a_repeatable_read_pool_each_operation_sets_read_committed_and_puts_the_level_back() throws Exception {
        try (HikariDataSource pool = pool("iso_rr_calls", "TRANSACTION_REPEATABLE_READ")) {
            IsolationCalls calls = new IsolationCalls(pool);
            try (RowQueues rq = RowQueues.builder(calls).dialectOption("wakeup", "poll").build()) {
                WorkQueue q = rq.workQueue("iso_jobs");
                q.enqueue("warm-up");
                q.ack(q.claim(1).get(0));
                long reads = calls.reads.get();
                long writes = calls.writes.get();
                q.enqueue("a");
                List<Job> jobs = q.claim(1);
                assertEquals(1, jobs.size());
                assertTrue(q.ack(jobs.get(0)));
                assertTrue(calls.reads.get() - reads <= 1, "the level was read before (or once, on a new connection)");
                assertEquals(6, calls.writes.get() - writes, "two per operation: to READ COMMITTED and back");
            }
        }
    }
}
