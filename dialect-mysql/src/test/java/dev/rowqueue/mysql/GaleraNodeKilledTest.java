package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Job;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Four producers and four consumers spread over a three-node Galera cluster while node 3 is SIGKILLed and restarted
 * to rejoin: every enqueue and ring push reported successful is there afterwards (each job processed, each ring entry
 * readable under its number), no job is handed to a second consumer while the first one's lease lives, and the
 * clients see only the documented transient failures ({@link TransientRowQueueException} when retries ran out,
 * {@link UnknownCommitOutcomeException} for a write whose node died while it could have committed). NOT RUN
 * without galera-4.
 */
@Timeout(300)
class GaleraNodeKilledTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    /** One handling of a job by a consumer. */
    private record Handling(long id, String payload, Instant claimedBy, Instant leaseUntil) {
    }

    @Test
    void a_node_killed_and_rejoining_mid_run_loses_no_reported_write_and_hands_no_job_out_twice() throws Exception {
        try (GaleraCluster cluster = GaleraCluster.start()) {
            cluster.createDatabase("faults");
            List<HikariDataSource> pools = new ArrayList<>();
            List<String> urls = cluster.urls("faults");
            for (int i = 0; i < urls.size(); i++) {
                HikariDataSource pool = MySqlTargets.pool(urls.get(i), "root", "", null, "fault-node" + (i + 1));
                pool.setConnectionTimeout(1_000); // a dead node's pool gives up fast; the retry takes the next node
                pools.add(pool);
            }
            try (RowQueues rq = RowQueues.builder(new GaleraTargets.RoundRobin(pools))
                    .retry(new RetryPolicy(60, Duration.ofMillis(5), Duration.ofMillis(500))).build()) {
                run(cluster, rq);
            } finally {
                pools.forEach(HikariDataSource::close);
            }
        }
    }

    private void run(GaleraCluster cluster, RowQueues rq) throws Exception {
        WorkQueue jobs = rq.workQueue("fault_jobs", WorkQueueOptions.defaults().leaseDuration(LEASE).maxAttempts(50)
                .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(200)));
        RingQueue ring = rq.ring("fault_ring", 1_000_000);
        Set<String> enqueued = ConcurrentHashMap.newKeySet();
        Map<Long, String> pushed = new ConcurrentHashMap<>();
        Map<Long, List<Handling>> handled = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> transientErrors = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicBoolean consuming = new AtomicBoolean(true);
        AtomicInteger unknownOutcomes = new AtomicInteger();

        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> tasks = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            int producer = p;
            tasks.add(pool.submit(() -> {
                for (int i = 0; producing.get(); i++) {
                    String payload = "p" + producer + "-" + i;
                    guard(() -> {
                        jobs.enqueue(payload);
                        enqueued.add(payload);
                    }, transientErrors, unknownOutcomes, unexpected);
                    guard(() -> pushed.put(ring.push("g", payload), payload), transientErrors, unknownOutcomes,
                            unexpected);
                }
            }));
        }
        for (int c = 0; c < 4; c++) {
            tasks.add(pool.submit(() -> {
                while (consuming.get()) {
                    guard(() -> {
                        List<Job> claimed = jobs.claim(5);
                        Instant returned = Instant.now();
                        for (Job j : claimed) {
                            handled.computeIfAbsent(j.id(), k -> java.util.Collections.synchronizedList(
                                    new ArrayList<>())).add(new Handling(j.id(), j.payload(), returned, j.leaseUntil()));
                        }
                        for (Job j : claimed) {
                            jobs.ack(j);
                        }
                        if (claimed.isEmpty()) {
                            Thread.sleep(20);
                        }
                    }, transientErrors, unknownOutcomes, unexpected);
                }
            }));
        }

        Thread.sleep(3_000);
        long killedAt = System.nanoTime();
        cluster.kill(2);
        Thread.sleep(3_000);
        cluster.restart(2);
        long rejoinMillis = (System.nanoTime() - killedAt) / 1_000_000;
        Thread.sleep(2_000);
        producing.set(false);

        // drain: every job reported enqueued must be handled
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            Set<String> seen = ConcurrentHashMap.newKeySet();
            handled.values().forEach(l -> {
                synchronized (l) {
                    l.forEach(h -> seen.add(h.payload()));
                }
            });
            if (seen.containsAll(enqueued)) {
                break;
            }
            Thread.sleep(200);
        }
        consuming.set(false);
        pool.shutdown();
        assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS), "clients did not stop");
        for (Future<?> f : tasks) {
            f.get();
        }

        System.out.printf("galera fault run: %d enqueued, %d pushed, %d jobs handled, node 3 back after %d ms,"
                        + " %d transient errors, %d unknown outcomes%n", enqueued.size(), pushed.size(),
                handled.size(), rejoinMillis, transientErrors.size(), unknownOutcomes.get());
        if (!unexpected.isEmpty()) {
            Throwable first = unexpected.peek();
            fail(unexpected.size() + " undocumented client errors, first: " + first, first);
        }

        Set<String> handledPayloads = new java.util.HashSet<>();
        for (List<Handling> hs : handled.values()) {
            List<Handling> sorted = new ArrayList<>(hs);
            sorted.sort(java.util.Comparator.comparing(Handling::claimedBy));
            for (int i = 1; i < sorted.size(); i++) {
                Handling before = sorted.get(i - 1);
                Handling after = sorted.get(i);
                assertTrue(!after.claimedBy().isBefore(before.leaseUntil()), "job " + after.id() + " was handed out"
                        + " again at " + after.claimedBy() + " while the lease until " + before.leaseUntil() + " lived");
            }
            sorted.forEach(h -> handledPayloads.add(h.payload()));
        }
        List<String> lost = enqueued.stream().filter(p -> !handledPayloads.contains(p)).sorted().toList();
        assertEquals(List.of(), lost, "jobs reported enqueued but never handed to a consumer");

        Map<Long, String> inRing = new HashMap<>();
        for (RingEntry e : ring.oldestFirst("g")) {
            inRing.put(e.seq(), e.payload());
        }
        for (Map.Entry<Long, String> p : pushed.entrySet()) {
            assertEquals(p.getValue(), inRing.get(p.getKey()), "ring push " + p.getKey() + " reported successful");
        }
        assertTrue(enqueued.size() > 100 && pushed.size() > 100, "the run did work: " + enqueued.size() + " jobs, "
                + pushed.size() + " pushes");
    }

    /** Work that throws. */
    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    private static void guard(Work work, ConcurrentLinkedQueue<String> transientErrors, AtomicInteger unknownOutcomes,
                              ConcurrentLinkedQueue<Throwable> unexpected) {
        try {
            work.run();
        } catch (UnknownCommitOutcomeException e) {
            unknownOutcomes.incrementAndGet();
        } catch (TransientRowQueueException e) {
            transientErrors.add(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception | AssertionError e) {
            unexpected.add(e);
        }
    }
}
