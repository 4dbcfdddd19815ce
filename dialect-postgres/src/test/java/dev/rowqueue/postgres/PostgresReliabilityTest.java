package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What happens when PostgreSQL sessions die and the server restarts: a consumer's session killed with
 * {@code pg_terminate_backend} in the middle of a claim or after it, and the embedded server stopped and started
 * under load. Operations fail with {@link TransientRowQueueException} (nothing applied) or
 * {@link UnknownCommitOutcomeException} (applied at most once), or are retried; nothing that reported success is lost.
 */
class PostgresReliabilityTest {

    private static final long PATIENCE_SECONDS = 60;

    private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private static List<Long> ids(List<Job> jobs) {
        return jobs.stream().map(Job::id).sorted().collect(Collectors.toList());
    }

    @Test
    void a_consumer_killed_in_the_middle_of_a_claim_loses_no_job() throws Exception {
        try (PgFixture db = PgFixture.newest("killclaim"); RowQueues rq = db.builder().build()) {
            WorkQueue q = rq.workQueue("killed_claim");
            List<String> payloads = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                payloads.add("job " + i);
            }
            List<Long> enqueued = q.enqueueAll(payloads, Enqueue.defaults());
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try (Connection locker = db.plain("locker")) {
                locker.setAutoCommit(false);
                try (Statement s = locker.createStatement()) {
                    s.execute("LOCK TABLE killed_claim IN ACCESS EXCLUSIVE MODE");
                }
                Future<List<Job>> consumer = thread.submit(() -> q.claim(10));
                String blocked = "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '" + db.database
                        + "' AND wait_event_type = 'Lock' AND query LIKE 'WITH c AS%'";
                eventually("the claim waits for the table lock", () -> db.queryLong(blocked) == 1);
                assertEquals(1, db.queryLong("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE"
                        + " datname = '" + db.database + "' AND wait_event_type = 'Lock' AND query LIKE 'WITH c AS%'"));
                Exception failure = assertThrows(Exception.class, () -> consumer.get(PATIENCE_SECONDS, TimeUnit.SECONDS));
                Throwable cause = failure.getCause();
                assertTrue(cause instanceof UnknownCommitOutcomeException || cause instanceof TransientRowQueueException,
                        "a clear transient error, got " + cause);
                assertEquals("57P01", ((RowQueueException) cause).sqlState(), cause.getMessage());
                locker.rollback();
            } finally {
                thread.shutdownNow();
            }
            List<Job> all = q.claim(50);
            assertEquals(enqueued, ids(all), "the killed claim leased nothing: every job is claimable at once");
            assertTrue(all.stream().allMatch(j -> j.failures() == 0));
        }
    }

    @Test
    void jobs_of_a_consumer_whose_session_is_killed_after_claiming_come_back_after_the_lease() throws Exception {
        try (PgFixture db = PgFixture.newest("killconsumer"); RowQueues rq = db.builder().build()) {
            WorkQueue q = rq.workQueue("killed_consumer", WorkQueueOptions.defaults()
                    .withLeaseDuration(Duration.ofMillis(1500)));
            Set<Long> enqueued = new HashSet<>(q.enqueueAll(List.of("a", "b", "c", "d", "e", "f", "g", "h"),
                    Enqueue.defaults()));
            List<Job> lost;
            try (Connection consumer = db.plain("doomed-consumer")) {
                lost = q.using(consumer).claim(5);
                assertEquals(5, lost.size());
                assertEquals(1, db.queryLong("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE"
                        + " application_name = 'doomed-consumer'"));
                RowQueueException e = assertThrows(RowQueueException.class, () -> q.using(consumer).ack(lost.get(0)));
                assertTrue(e.sqlState() != null && (e.sqlState().startsWith("08") || e.sqlState().startsWith("57")),
                        "the dead session's ack fails: " + e.getMessage());
            }
            Map<Long, Job> delivered = new HashMap<>();
            for (Job j : q.claim(10)) {
                delivered.put(j.id(), j);
                assertTrue(q.ack(j));
            }
            assertEquals(3, delivered.size(), "the other jobs at once; the killed consumer's stay leased");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
            while (delivered.size() < enqueued.size() && System.nanoTime() < deadline) {
                for (Job j : q.claim(10, Duration.ofSeconds(5))) {
                    assertEquals(1, j.failures(), "the expired lease counts as a failed attempt");
                    delivered.put(j.id(), j);
                    assertTrue(q.ack(j));
                }
            }
            assertEquals(enqueued, delivered.keySet(), "nothing lost");
            assertEquals(0, q.stats().total());
        }
    }

    @Test
    void a_server_restart_fails_operations_clearly_loses_nothing_committed_and_work_resumes() throws Exception {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.dedicated(EmbeddedPostgresServer.NEWEST);
        PgFixture db = PgFixture.on(server, "restart");
        RowQueues rq = db.builder().pollInterval(Duration.ofMillis(100)).build();
        int producers = 4;
        int consumers = 2;
        ExecutorService pool = Executors.newFixedThreadPool(producers + consumers);
        HikariDataSource impatientPool = server.pool(db.database, 2, 250);
        RowQueues impatient = RowQueues.builder(impatientPool).retry(RetryPolicy.none()).build();
        try {
            WorkQueue q = rq.workQueue("restart_jobs", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMinutes(5)));
            WorkQueue impatientQueue = impatient.workQueue("restart_jobs");
            RingQueue ring = rq.ring("restart_ring", 1_000_000);
            Counters counters = rq.counters("restart_counters");

            Map<String, Long> enqueued = new ConcurrentHashMap<>();
            Map<String, Long> pushed = new ConcurrentHashMap<>();
            Set<String> unknown = ConcurrentHashMap.newKeySet();
            Set<String> failed = ConcurrentHashMap.newKeySet();
            AtomicLong increments = new AtomicLong();
            AtomicLong unknownIncrements = new AtomicLong();
            Set<Long> acked = ConcurrentHashMap.newKeySet();
            Set<Long> maybeAcked = ConcurrentHashMap.newKeySet();
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            AtomicLong transientErrors = new AtomicLong();
            AtomicLong unknownErrors = new AtomicLong();
            AtomicBoolean restarted = new AtomicBoolean();
            AtomicLong producedAfter = new AtomicLong();
            AtomicLong ackedAfter = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();

            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                int producer = t;
                running.add(pool.submit(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        String payload = "p" + producer + "-" + i;
                        int step = i % 3;
                        try {
                            if (step == 0) {
                                enqueued.put(payload, q.enqueue(payload));
                            } else if (step == 1) {
                                pushed.put(payload, ring.push("g", payload));
                            } else {
                                counters.increment("k");
                                increments.incrementAndGet();
                            }
                            if (restarted.get()) {
                                producedAfter.incrementAndGet();
                            }
                        } catch (UnknownCommitOutcomeException e) {
                            unknownErrors.incrementAndGet();
                            if (step == 2) {
                                unknownIncrements.incrementAndGet();
                            } else {
                                unknown.add(payload);
                            }
                        } catch (TransientRowQueueException e) {
                            transientErrors.incrementAndGet();
                            if (step != 2) {
                                failed.add(payload);
                            }
                        } catch (RuntimeException e) {
                            unexpected.add(e);
                        }
                    }
                    return null;
                }));
            }
            for (int t = 0; t < consumers; t++) {
                running.add(pool.submit(() -> {
                    while (!stop.get()) {
                        try {
                            for (Job job : q.claim(5, Duration.ofMillis(300))) {
                                try {
                                    if (q.ack(job)) {
                                        acked.add(job.id());
                                        if (restarted.get()) {
                                            ackedAfter.incrementAndGet();
                                        }
                                    }
                                } catch (UnknownCommitOutcomeException e) {
                                    maybeAcked.add(job.id());
                                    unknownErrors.incrementAndGet();
                                } catch (TransientRowQueueException e) {
                                    transientErrors.incrementAndGet();
                                }
                            }
                        } catch (UnknownCommitOutcomeException e) {
                            unknownErrors.incrementAndGet(); // a claim of unknown outcome: its jobs return after the lease
                        } catch (TransientRowQueueException e) {
                            transientErrors.incrementAndGet();
                        } catch (RuntimeException e) {
                            unexpected.add(e);
                        }
                    }
                    return null;
                }));
            }

            TimeUnit.MILLISECONDS.sleep(1500);
            long beforeStop = enqueued.size() + pushed.size();
            server.stop();
            TransientRowQueueException down = assertThrows(TransientRowQueueException.class,
                    () -> impatientQueue.enqueue("while the server is down"));
            assertTrue(down.getMessage().contains("SQLState"), down.getMessage());
            TimeUnit.SECONDS.sleep(2);
            server.start();
            restarted.set(true);
            eventually("producers and consumers resume after the restart",
                    () -> producedAfter.get() >= 200 && ackedAfter.get() >= 20 || !unexpected.isEmpty());
            stop.set(true);
            for (Future<?> f : running) {
                f.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
            }
            assertEquals(List.of(), List.copyOf(unexpected).stream().map(Throwable::toString).toList(),
                    "every failure is transient or of unknown outcome");
            assertTrue(beforeStop > 0, "work ran before the restart");
            System.out.printf("restart: %d enqueued, %d pushed, %d increments committed; %d transient failures,"
                            + " %d of unknown outcome%n", enqueued.size(), pushed.size(), increments.get(),
                    transientErrors.get(), unknownErrors.get());

            // jobs: every committed enqueue is still there or was delivered and acked; nothing that failed exists
            Map<String, Long> inTable = new HashMap<>();
            try (Connection c = db.plain("checker"); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT payload, id FROM restart_jobs")) {
                while (rs.next()) {
                    inTable.put(rs.getString(1), rs.getLong(2));
                }
            }
            for (Map.Entry<String, Long> e : enqueued.entrySet()) {
                long id = e.getValue();
                assertTrue(inTable.containsKey(e.getKey()) || acked.contains(id) || maybeAcked.contains(id),
                        "committed job " + e.getKey() + " (id " + id + ") is lost");
            }
            for (String payload : inTable.keySet()) {
                assertTrue(enqueued.containsKey(payload) || unknown.contains(payload),
                        "job " + payload + " exists although its enqueue failed");
            }
            assertTrue(failed.stream().noneMatch(inTable::containsKey), "a failed enqueue applied");

            // ring: every committed push is there under its number; failed pushes are not
            Map<String, Long> entries = new HashMap<>();
            for (RingEntry e : ring.oldestFirst("g")) {
                entries.put(e.payload(), e.seq());
            }
            for (Map.Entry<String, Long> e : pushed.entrySet()) {
                assertEquals(e.getValue(), entries.get(e.getKey()), "committed push " + e.getKey());
            }
            assertTrue(failed.stream().noneMatch(entries::containsKey), "a failed push applied");
            assertTrue(entries.keySet().stream().allMatch(p -> pushed.containsKey(p) || unknown.contains(p)));

            // counter: every committed increment counted, each unknown one at most once
            long k = counters.get("k");
            assertTrue(k >= increments.get() && k <= increments.get() + unknownIncrements.get(),
                    "counter " + k + " vs " + increments.get() + " committed + " + unknownIncrements.get() + " unknown");
            assertFalse(enqueued.isEmpty());
            assertFalse(inTable.containsKey("while the server is down"), "the failed enqueue did not apply");
        } finally {
            pool.shutdownNow();
            impatient.close();
            impatientPool.close();
            rq.close();
            db.close();
            server.close();
        }
    }
}
