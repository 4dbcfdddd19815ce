package dev.rowqueue.internal;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code RowQueues.Builder#claimConcurrency}: how many claims of one work queue run at once. */
class ClaimConcurrencyTest {

    /** Counts connections; can make the next borrower wait inside {@code getConnection} until released. */
    static final class HoldingDataSource {
        final JdbcDataSource h2 = new JdbcDataSource();
        final AtomicInteger borrowed = new AtomicInteger();
        final AtomicBoolean holdNext = new AtomicBoolean();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        /** Delegates every method to H2's data source; {@code getConnection()} counts and may hold first. */
        final DataSource ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && method.getParameterCount() == 0) {
                        borrowed.incrementAndGet();
                        if (holdNext.compareAndSet(true, false)) {
                            held.countDown();
                            release.await();
                        }
                    }
                    try {
                        return method.invoke(h2, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        Connection getConnection() throws SQLException {
            return ds.getConnection();
        }
    }

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static HoldingDataSource dataSource(String name) {
        HoldingDataSource ds = new HoldingDataSource();
        ds.h2.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    @Test
    void with_one_claim_at_a_time_a_second_claimer_waits_without_a_connection_and_gets_the_next_job() throws Exception {
        HoldingDataSource ds = dataSource("gate_one");
        try (RowQueues rq = RowQueues.builder(ds.ds).claimConcurrency(1).build()) {
            WorkQueue q = rq.workQueue("gated");
            WorkQueue other = rq.workQueue("other");
            Set<Long> enqueued = Set.of(q.enqueue("a"), q.enqueue("b"), q.enqueue("c"));
            other.enqueue("x");
            ds.holdNext.set(true);
            Future<List<Job>> first = threads.submit(() -> q.claim(1));
            assertTrue(ds.held.await(10, TimeUnit.SECONDS), "the first claim borrows a connection");
            int borrowed = ds.borrowed.get();
            Future<List<Job>> second = threads.submit(() -> q.claim(1));
            assertThrows(TimeoutException.class, () -> second.get(300, TimeUnit.MILLISECONDS),
                    "the second claim of the queue waits while the first runs");
            assertEquals(borrowed, ds.borrowed.get(), "and holds no connection while it waits");
            assertEquals(1, other.claim(1).size(), "another queue's claims have a gate of their own");
            Set<Long> claimed = new HashSet<>();
            try (Connection c = ds.getConnection()) {
                List<Job> mine = q.using(c).claim(1, Duration.ZERO);
                assertEquals(1, mine.size(), "a claim on a caller's connection passes the gate");
                claimed.add(mine.get(0).id());
            }
            ds.release.countDown();
            first.get(10, TimeUnit.SECONDS).forEach(j -> claimed.add(j.id()));
            second.get(10, TimeUnit.SECONDS).forEach(j -> claimed.add(j.id()));
            q.claim(1).forEach(j -> claimed.add(j.id()));
            assertEquals(enqueued, claimed, "every job claimed once");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 0})
    void with_two_claims_at_a_time_or_the_portable_dialects_default_the_second_claimer_runs_while_the_first_is_held(
            int claims) throws Exception {
        HoldingDataSource ds = dataSource("gate_" + claims);
        RowQueues.Builder builder = RowQueues.builder(ds.ds);
        if (claims > 0) {
            builder.claimConcurrency(claims);
        }
        try (RowQueues rq = builder.build()) {
            WorkQueue q = rq.workQueue("gated");
            long a = q.enqueue("a");
            long b = q.enqueue("b");
            ds.holdNext.set(true);
            Future<List<Job>> first = threads.submit(() -> q.claim(1));
            assertTrue(ds.held.await(10, TimeUnit.SECONDS));
            List<Job> second = threads.submit(() -> q.claim(1)).get(10, TimeUnit.SECONDS);
            ds.release.countDown();
            List<Job> firstJobs = first.get(10, TimeUnit.SECONDS);
            assertEquals(Set.of(a, b), Set.of(second.get(0).id(), firstJobs.get(0).id()));
        }
    }

    @Test
    void the_limit_is_at_least_one() {
        RowQueues.Builder builder = RowQueues.builder(dataSource("gate_zero").ds);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.claimConcurrency(0));
        assertTrue(e.getMessage().contains("claimConcurrency"), e.getMessage());
    }
}
