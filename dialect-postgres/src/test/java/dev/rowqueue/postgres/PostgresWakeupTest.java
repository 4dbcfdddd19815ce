package dev.rowqueue.postgres;

import dev.rowqueue.Capability;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking claims woken by {@code LISTEN/NOTIFY}. The instance under test polls only every 60 seconds while it listens
 * ({@code wakeupPollMillis}), longer than any wait in these tests: a claim that returns a job before its maximum wait
 * was woken by a notification or an announced due time, not by polling.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresWakeupTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long PATIENCE_SECONDS = 40;

    private PgFixture db;
    private CountingDataSource counting;
    private RowQueues rq;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    void open() {
        db = PgFixture.newest("wakeup");
        counting = new CountingDataSource(db.pool);
        rq = RowQueues.builder(counting).dialectOption("wakeupPollMillis", "60000").pollInterval(Duration.ofMillis(100))
                .build();
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        rq.close();
        db.close();
    }

    private WorkQueue queue(String name) {
        return rq.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(10))).create();
    }

    private CompletableFuture<List<Job>> waiting(WorkQueue q, Duration maxWait) {
        return CompletableFuture.supplyAsync(() -> q.claim(1, maxWait), threads);
    }

    private static List<Job> result(CompletableFuture<List<Job>> f) throws Exception {
        return f.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
    }

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private long listeningBackends() {
        return db.queryLong("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '" + db.database
                + "' AND query LIKE 'LISTEN %'");
    }

    @Test
    void the_dialect_declares_wakeups() {
        assertTrue(rq.database().capabilities().contains(Capability.WAKEUP));
    }

    @Test
    void a_blocking_claim_is_woken_by_an_enqueue() throws Exception {
        WorkQueue q = queue("wake_enqueue");
        CompletableFuture<List<Job>> waiter = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(500);
        assertFalse(waiter.isDone(), "nothing to claim yet");
        long id = q.enqueue("arrived");
        List<Job> jobs = result(waiter);
        assertEquals(1, jobs.size(), "woken by the notification long before the 60 s poll");
        assertEquals(id, jobs.get(0).id());
    }

    @Test
    void a_blocking_claim_wakes_when_an_announced_delayed_job_becomes_due() throws Exception {
        WorkQueue q = queue("wake_due");
        CompletableFuture<List<Job>> waiter = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(300);
        long id = q.enqueue("later", Enqueue.defaults().withDelay(Duration.ofMillis(1500)));
        List<Job> jobs = result(waiter);
        assertEquals(1, jobs.size(), "woken at the announced due time");
        assertEquals(id, jobs.get(0).id());
        assertTrue(!jobs.get(0).leaseUntil().isBefore(jobs.get(0).enqueuedAt().plusMillis(1500)),
                "claimed only once due");
    }

    @Test
    void release_and_a_delayed_nack_wake_waiting_claims() throws Exception {
        WorkQueue q = queue("wake_retry");
        q.enqueue("job");
        Job first = q.claim(1).get(0);
        CompletableFuture<List<Job>> second = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(300);
        assertTrue(q.release(first));
        Job again = result(second).get(0);
        assertEquals(first.id(), again.id());
        CompletableFuture<List<Job>> third = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(300);
        assertTrue(q.nack(again, Duration.ofMillis(800), "try later"));
        List<Job> retried = result(third);
        assertEquals(1, retried.size(), "woken when the retry became due");
        assertEquals(1, retried.get(0).failures());
    }

    @Test
    void a_job_enqueued_in_a_callers_transaction_wakes_waiters_only_when_it_commits() throws Exception {
        WorkQueue q = queue("wake_outbox");
        CompletableFuture<List<Job>> waiter = waiting(q, WAIT);
        try (Connection c = db.pool.getConnection()) {
            c.setAutoCommit(false);
            q.using(c).enqueue("with the order");
            TimeUnit.MILLISECONDS.sleep(700);
            assertFalse(waiter.isDone(), "uncommitted work neither wakes nor is claimed");
            c.commit();
        }
        assertEquals(List.of("with the order"), result(waiter).stream().map(Job::payload).toList());
    }

    @Test
    void no_wake_up_is_lost_between_an_empty_claim_and_the_wait() throws Exception {
        WorkQueue q = queue("wake_race");
        for (int round = 0; round < 40; round++) {
            CompletableFuture<List<Job>> waiter = waiting(q, WAIT);
            long pause = ThreadLocalRandom.current().nextLong(0, 4_000_000);
            TimeUnit.NANOSECONDS.sleep(pause); // lands anywhere in ticket, claim, await
            long id = q.enqueue("round " + round);
            List<Job> jobs = result(waiter);
            assertEquals(1, jobs.size(), "round " + round + ": the waiter missed a wake-up");
            assertEquals(id, jobs.get(0).id());
            q.ack(jobs.get(0));
        }
    }

    /**
     * Enqueues of one instance that run at once share their notifications (PostgreSQL serializes notifying commits),
     * and none is lost: in each round, eight threads enqueue one job each at the same moment while eight claims of
     * another instance wait (polling only every 60 s), and every waiter gets a job. Fewer notifications than
     * enqueues are sent over the rounds; one per enqueue with the coalescing removed.
     */
    @Test
    void concurrent_enqueues_share_notifications_and_wake_every_waiter() throws Exception {
        int threads = 8;
        int rounds = 20;
        CountingDataSource producing = new CountingDataSource(db.pool);
        ExecutorService producers = Executors.newFixedThreadPool(threads);
        try (RowQueues producer = RowQueues.builder(producing).build()) {
            WorkQueue into = producer.workQueue("wake_burst");
            WorkQueue from = queue("wake_burst");
            producing.record();
            for (int round = 0; round < rounds; round++) {
                List<CompletableFuture<List<Job>>> waiters = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    waiters.add(waiting(from, WAIT));
                }
                TimeUnit.MILLISECONDS.sleep(200);
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(threads);
                List<java.util.concurrent.Future<Long>> enqueued = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    int n = i;
                    enqueued.add(producers.submit(() -> {
                        together.await();
                        return into.enqueue("round job " + n);
                    }));
                }
                for (java.util.concurrent.Future<Long> f : enqueued) {
                    f.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
                }
                for (CompletableFuture<List<Job>> w : waiters) {
                    List<Job> jobs = result(w);
                    assertEquals(1, jobs.size(), "round " + round + ": a waiter missed its wake-up");
                    from.ack(jobs.get(0));
                }
            }
            long notifications = producing.recorded().stream().filter(sql -> sql.contains("pg_notify")).count();
            assertTrue(notifications < (long) threads * rounds, "concurrent enqueues share notifications: "
                    + notifications + " for " + threads * rounds + " enqueues");
            assertTrue(notifications >= rounds, "at least one a round: " + notifications);
        } finally {
            producers.shutdownNow();
        }
    }

    /**
     * Counts the statements on the queue's table only: the instance's own background work (its activity flush a
     * second into each minute, its node heartbeat every 10 s once it has held a lease) may run during the wait. CI
     * failed this rule once counting every statement of the data source: 3 where 2 was the bound.
     */
    @Test
    void a_listening_blocking_claim_does_not_poll() throws Exception {
        WorkQueue q = queue("wake_quiet");
        q.claim(1, Duration.ofMillis(10)); // subscribes
        counting.record();
        assertEquals(List.of(), q.claim(1, Duration.ofMillis(1500)));
        List<String> claims = counting.recorded().stream().filter(sql -> sql.contains("wake_quiet")).toList();
        assertTrue(claims.size() <= 2, "a blocking claim that listens looks once (plus once per signal), ran "
                + claims.size() + ": " + claims + "; every statement meanwhile: " + counting.recorded());
    }

    @Test
    void a_killed_listening_connection_loses_no_job_and_listening_resumes() throws Exception {
        WorkQueue q = queue("wake_killed");
        q.claim(1, Duration.ofMillis(10)); // subscribes
        eventually("a backend listens", () -> listeningBackends() == 1);
        CompletableFuture<List<Job>> waiter = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(300);
        assertEquals(1, db.queryLong("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '"
                + db.database + "' AND query LIKE 'LISTEN %'"));
        long id = q.enqueue("sent while the listener was being killed");
        List<Job> jobs = result(waiter);
        assertEquals(1, jobs.size(), "the waiter still got the job");
        assertEquals(id, jobs.get(0).id());
        eventually("the listener reconnected", () -> listeningBackends() == 1);
        // the backend shows its LISTEN while it runs, before the listener thread has marked the channel listening (on
        // a loaded machine, seen in CI: 3 statements, a poll before the mark): listening must resume within a few
        // blocking claims, and a claim that polls all the time (10 or more statements each) never passes
        List<Long> runs = new ArrayList<>();
        while (runs.size() < 10 && (runs.isEmpty() || runs.get(runs.size() - 1) > 2)) {
            long before = counting.executions();
            assertEquals(List.of(), q.claim(1, Duration.ofMillis(1500)));
            runs.add(counting.executions() - before);
        }
        assertTrue(runs.get(runs.size() - 1) <= 2, "listening again, not polling: statements per claim " + runs);
        CompletableFuture<List<Job>> next = waiting(q, WAIT);
        TimeUnit.MILLISECONDS.sleep(300);
        q.enqueue("after the reconnect");
        assertEquals(1, result(next).size());
    }

    @Test
    void closing_releases_the_listening_connection() throws Exception {
        String app = "rq-close-test";
        DriverManagerDataSource unpooled = new DriverManagerDataSource(
                db.server.url(db.database) + "?ApplicationName=" + app, "postgres", "");
        RowQueues own = RowQueues.builder(unpooled).build();
        own.workQueue("wake_close").claim(1, Duration.ofMillis(50));
        String count = "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = '" + app + "'";
        eventually("the listener connected", () -> db.queryLong(count) == 1);
        own.close();
        eventually("the listener's connection closed", () -> db.queryLong(count) == 0);
    }

    @Test
    void an_instance_with_notify_off_sends_no_notification_and_listeners_find_its_jobs_by_their_bounded_poll()
            throws Exception {
        CountingDataSource quietCounting = new CountingDataSource(db.pool);
        try (RowQueues quiet = RowQueues.builder(quietCounting).dialectOption("notify", "false").build();
             RowQueues listening = db.builder().dialectOption("wakeupPollMillis", "500").build()) {
            WorkQueue producer = quiet.workQueue("wake_quiet_producer");
            WorkQueue consumer = listening.workQueue("wake_quiet_producer");
            CompletableFuture<List<Job>> waiter = CompletableFuture.supplyAsync(() -> consumer.claim(1, WAIT), threads);
            TimeUnit.MILLISECONDS.sleep(300);
            quietCounting.record();
            producer.enqueue("quietly");
            assertTrue(quietCounting.recorded().stream().noneMatch(sql -> sql.contains("pg_notify")));
            assertEquals(List.of("quietly"), result(waiter).stream().map(Job::payload).toList());
        }
    }

    @Test
    void with_wakeup_poll_blocking_claims_poll_and_nothing_listens() throws Exception {
        try (RowQueues polling = db.builder().dialectOption("wakeup", "poll").build()) {
            assertFalse(polling.database().capabilities().contains(Capability.WAKEUP));
            WorkQueue q = polling.workQueue("wake_polling");
            CompletableFuture<List<Job>> waiter = CompletableFuture.supplyAsync(() -> q.claim(1, WAIT), threads);
            TimeUnit.MILLISECONDS.sleep(300);
            q.enqueue("polled");
            assertEquals(1, result(waiter).size());
        }
    }
}
