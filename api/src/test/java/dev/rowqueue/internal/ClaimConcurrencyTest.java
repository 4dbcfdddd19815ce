package dev.rowqueue.internal;

import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.portable.PortableDialect;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
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
        /** When set, the next {@code getConnection()} after a held one throws this. */
        volatile Throwable failNext;
        /** Delegates every method to H2's data source; {@code getConnection()} counts and may hold first. */
        final DataSource ds = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && method.getParameterCount() == 0) {
                        borrowed.incrementAndGet();
                        if (holdNext.compareAndSet(true, false)) {
                            held.countDown();
                            release.await();
                        } else if (failNext != null) {
                            Throwable e = failNext;
                            failNext = null;
                            throw e;
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

    /** An instance over {@code ds} that runs one claim of a queue at a time. */
    private static RowQueues oneClaimAtATime(HoldingDataSource ds) {
        return RowQueues.builder(ds.ds).claimConcurrency(1).build();
    }

    /** Starts {@code q.claim(1)} and returns once it waits inside {@code getConnection}, holding its permit. */
    private Future<List<Job>> heldClaim(HoldingDataSource ds, WorkQueue q) throws InterruptedException {
        ds.holdNext.set(true);
        Future<List<Job>> first = threads.submit(() -> q.claim(1));
        assertTrue(ds.held.await(10, TimeUnit.SECONDS), "the first claim borrows a connection");
        return first;
    }

    @Test
    void with_one_claim_at_a_time_a_second_claimer_waits_without_a_connection_and_gets_the_next_job() throws Exception {
        HoldingDataSource ds = dataSource("gate_one");
        try (RowQueues rq = oneClaimAtATime(ds)) {
            WorkQueue q = rq.workQueue("gated");
            WorkQueue other = rq.workQueue("other");
            Set<Long> enqueued = Set.of(q.enqueue("a"), q.enqueue("b"), q.enqueue("c"));
            other.enqueue("x");
            Future<List<Job>> first = heldClaim(ds, q);
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

    @Test
    void the_portable_dialect_runs_one_claim_of_a_queue_at_a_time() {
        assertEquals(1, new PortableDialect(DatabaseProduct.assumed("AnyDB", 1, 0)).policy().claimConcurrency());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void with_two_or_more_claims_at_a_time_the_second_claimer_runs_while_the_first_is_held(int claims)
            throws Exception {
        HoldingDataSource ds = dataSource("gate_" + claims);
        try (RowQueues rq = RowQueues.builder(ds.ds).claimConcurrency(claims).build()) {
            WorkQueue q = rq.workQueue("gated");
            long a = q.enqueue("a");
            long b = q.enqueue("b");
            Future<List<Job>> first = heldClaim(ds, q);
            List<Job> second = threads.submit(() -> q.claim(1)).get(10, TimeUnit.SECONDS);
            ds.release.countDown();
            List<Job> firstJobs = first.get(10, TimeUnit.SECONDS);
            assertEquals(Set.of(a, b), Set.of(second.get(0).id(), firstJobs.get(0).id()));
        }
    }

    /** A claimer on a thread of its own. */
    private record Blocked<T>(FutureTask<T> task, Thread thread) {
        T get() throws Exception {
            return task.get(10, TimeUnit.SECONDS);
        }
    }

    /** Starts a thread and waits until it blocks (in the gate, for these tests). */
    private static <T> Blocked<T> blocked(Callable<T> work) throws InterruptedException {
        FutureTask<T> task = new FutureTask<>(work);
        Thread t = new Thread(task, "claimer");
        t.setDaemon(true);
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadline, "the claimer did not block: " + t.getState());
            Thread.sleep(1);
        }
        return new Blocked<>(task, t);
    }

    @Test
    void claims_that_wait_run_together_as_one_and_each_gets_what_it_asked_for() throws Exception {
        HoldingDataSource ds = dataSource("combined");
        try (RowQueues rq = oneClaimAtATime(ds)) {
            WorkQueue q = rq.workQueue("gated");
            WorkQueue longLeases = rq.workQueue("gated", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofHours(1)));
            Set<Long> enqueued = new HashSet<>();
            for (int i = 0; i < 10; i++) {
                enqueued.add(q.enqueue("job " + i));
            }
            List<Job> done = q.claim(2);
            Future<List<Job>> first = heldClaim(ds, q);
            Blocked<List<Job>> two = blocked(() -> q.claim(2));
            Blocked<Handoff> ackOne = blocked(() -> q.ackAndClaim(List.of(done.get(0)), 1));
            Blocked<Handoff> ackOneAgain = blocked(() -> q.ackAndClaim(List.of(done.get(0)), 1));
            Blocked<Handoff> ackOther = blocked(() -> q.ackAndClaim(List.of(done.get(1)), 3));
            Blocked<List<Job>> otherLease = blocked(() -> longLeases.claim(1));
            int borrowed = ds.borrowed.get();
            ds.release.countDown();

            Set<Long> claimed = new HashSet<>();
            List<List<Job>> results = List.of(first.get(10, TimeUnit.SECONDS), two.get(), ackOne.get().claimed(),
                    ackOneAgain.get().claimed(), ackOther.get().claimed(), otherLease.get());
            assertEquals(List.of(1, 2, 1, 1, 3, 0), results.stream().map(List::size).toList(),
                    "each as many as it asked for, oldest request first, while jobs last");
            results.forEach(jobs -> jobs.forEach(j -> assertTrue(claimed.add(j.id()), "job " + j.id() + " twice")));
            assertEquals(List.of(), ackOne.get().lost(), "its ack took effect");
            assertEquals(List.of(done.get(0)), ackOneAgain.get().lost(),
                    "acking the same job again ran on its own, after the first ack: lost");
            assertEquals(List.of(), ackOther.get().lost());
            assertEquals(3, ds.borrowed.get() - borrowed,
                    "one statement for the claim, both acks of other jobs and the first ack of done[0]; one for the "
                            + "second ack of done[0] (same job); one for the other lease: not four");
            assertEquals(List.of(), q.claim(10), "8 jobs claimed, 2 acked");
            claimed.addAll(List.of(done.get(0).id(), done.get(1).id()));
            assertEquals(enqueued, claimed);
        }
    }

    @Test
    void when_the_claim_run_for_several_fails_each_of_them_gets_the_failure_and_none_waits_for_ever()
            throws Exception {
        HoldingDataSource ds = dataSource("failing");
        try (RowQueues rq = oneClaimAtATime(ds)) {
            WorkQueue q = rq.workQueue("gated");
            q.enqueue("a");
            q.enqueue("b");
            Future<List<Job>> first = heldClaim(ds, q);
            Blocked<List<Job>> one = blocked(() -> q.claim(1));
            Blocked<List<Job>> two = blocked(() -> q.claim(1));
            AssertionError broken = new AssertionError("the pool broke");
            ds.failNext = broken;
            ds.release.countDown();
            assertEquals(1, first.get(10, TimeUnit.SECONDS).size());
            for (Blocked<List<Job>> waiter : List.of(one, two)) {
                ExecutionException e = assertThrows(ExecutionException.class, waiter::get);
                assertEquals(broken, e.getCause(), "not even an Error strands the requests that rode along");
            }
            assertEquals(1, q.claim(5).size(), "the job nobody got is still there");
        }
    }

    @Test
    void when_the_claim_run_for_several_fails_with_a_conflict_only_its_runner_fails_and_the_others_run_again()
            throws Exception {
        HoldingDataSource ds = dataSource("conflict");
        try (RowQueues rq = RowQueues.builder(ds.ds).claimConcurrency(1)
                .retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build()) {
            WorkQueue q = rq.workQueue("gated");
            long a = q.enqueue("a");
            long b = q.enqueue("b");
            long c = q.enqueue("c");
            Future<List<Job>> first = heldClaim(ds, q);
            Blocked<List<Job>> one = blocked(() -> q.claim(1));
            Blocked<List<Job>> two = blocked(() -> q.claim(1));
            ds.failNext = new SQLException("could not serialize access due to concurrent update", "40001");
            ds.release.countDown();
            assertEquals(1, first.get(10, TimeUnit.SECONDS).size(), "the held claim ran alone, before the failure");
            ExecutionException e = assertThrows(ExecutionException.class, one::get);
            assertTrue(e.getCause() instanceof TransientRowQueueException, "the request that ran the statement: "
                    + e.getCause());
            List<Job> jobs = two.get();
            assertEquals(1, jobs.size(), "the request that rode along ran again and got its job");
            Set<Long> got = Set.of(jobs.get(0).id());
            assertTrue(Set.of(a, b, c).containsAll(got));
        }
    }

    @Test
    void an_interrupted_claimer_that_was_not_served_gives_up_and_takes_no_job() throws Exception {
        HoldingDataSource ds = dataSource("interrupted");
        try (RowQueues rq = oneClaimAtATime(ds)) {
            WorkQueue q = rq.workQueue("gated");
            long a = q.enqueue("a");
            long b = q.enqueue("b");
            Future<List<Job>> first = heldClaim(ds, q);
            Blocked<Boolean> waiter = blocked(() -> {
                try {
                    q.claim(1);
                    return false;
                } catch (TransientRowQueueException e) {
                    return Thread.currentThread().isInterrupted();
                }
            });
            waiter.thread().interrupt();
            assertTrue(waiter.get(), "gave up with its interrupt flag set");
            ds.release.countDown();
            assertEquals(List.of(a), first.get(10, TimeUnit.SECONDS).stream().map(Job::id).toList());
            assertEquals(List.of(b), q.claim(5).stream().map(Job::id).toList(), "the job it did not take is there");
        }
    }

    @Test
    void the_limit_is_at_least_one() {
        RowQueues.Builder builder = RowQueues.builder(dataSource("gate_zero").ds);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> builder.claimConcurrency(0));
        assertTrue(e.getMessage().contains("claimConcurrency"), e.getMessage());
    }
}
