package dev.rowqueue.tck;

import dev.rowqueue.Job;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Workers ({@link WorkQueue#worker}): every job run exactly once by several workers, long work kept by heartbeats,
 * failures retried then dead, close and pause losing nothing.
 */
public abstract class WorkerContract extends Contract {

    /** A bound on waiting for the workers, so a hang fails instead of stalling the build; not a performance limit. */
    private static final Duration LIVENESS = Duration.ofMinutes(2);

    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + LIVENESS.toNanos();
        long mark = Refusals.mark();
        while (!condition.getAsBoolean()) {
            Refusals.failIfRefusedSince(mark, what);
            if (System.nanoTime() > deadline) {
                fail("not within " + LIVENESS + ": " + what + ". " + StuckStatements.describe());
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private List<Long> enqueue(WorkQueue q, int n) {
        List<String> payloads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            payloads.add("job " + i);
        }
        return q.enqueueAll(payloads, dev.rowqueue.Enqueue.defaults());
    }

    @Test
    void three_workers_of_four_threads_run_every_job_exactly_once() throws Exception {
        WorkQueue q = rq().workQueue(newName());
        List<Long> ids = enqueue(q, 300);
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<Worker> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                workers.add(q.worker(job -> runs.computeIfAbsent(job.id(), id -> new AtomicInteger())
                        .incrementAndGet(), WorkerOptions.defaults().withThreads(4).withPrefetch(w)).start());
            }
            eventually("every job ran", () -> runs.size() == ids.size() && q.stats().total() == 0);
        } finally {
            workers.forEach(Worker::close);
        }
        assertEquals(Set.copyOf(ids), runs.keySet());
        runs.forEach((id, n) -> assertEquals(1, n.get(), "job " + id + " ran " + n + " times"));
        assertEquals(0, q.stats().total(), "every job acked");
    }

    @Test
    void a_handler_running_three_times_its_lease_is_not_handed_to_another_worker() throws Exception {
        Duration lease = Duration.ofMillis(1200);
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(lease));
        long id = q.enqueue("slow");
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        Worker slow = q.worker(job -> {
            runs.incrementAndGet();
            started.countDown();
            TimeUnit.MILLISECONDS.sleep(3 * lease.toMillis());
        }, WorkerOptions.defaults().withThreads(1));
        Worker other = q.worker(job -> runs.incrementAndGet(), WorkerOptions.defaults().withThreads(2));
        try {
            slow.start();
            assertTrue(started.await(LIVENESS.toSeconds(), TimeUnit.SECONDS), "the slow handler started");
            other.start();
            eventually("the slow job was acked", () -> q.stats().total() == 0);
        } finally {
            slow.close();
            other.close();
        }
        assertEquals(1, runs.get(), "job " + id + " ran once: heartbeats kept its lease while the handler ran");
    }

    @Test
    void a_throwing_handler_is_retried_then_dead_with_its_error() throws Exception {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withMaxAttempts(3)
                .withRetryBackoff(Duration.ZERO, Duration.ZERO));
        long id = q.enqueue("poison");
        AtomicInteger attempts = new AtomicInteger();
        List<Integer> seen = new ArrayList<>();
        AtomicInteger dead = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void failed(Job job, Throwable error, Duration running) {
                failed.incrementAndGet();
            }

            @Override
            public void dead(Job job, Throwable error) {
                dead.incrementAndGet();
            }
        };
        try (Worker w = q.worker(job -> {
            synchronized (seen) {
                seen.add(job.attempt());
            }
            attempts.incrementAndGet();
            throw new IllegalStateException("cannot parse " + job.payload());
        }, WorkerOptions.defaults().withThreads(2).withListener(listener)).start()) {
            eventually("the job is dead", () -> q.stats().dead() == 1);
        }
        assertEquals(3, attempts.get(), "maxAttempts runs");
        assertEquals(List.of(1, 2, 3), seen, "attempt numbers as the handler saw them");
        assertEquals(2, failed.get());
        assertEquals(1, dead.get());
        Job letter = q.deadLetters(10).get(0);
        assertEquals(id, letter.id());
        assertTrue(letter.lastError().contains("IllegalStateException: cannot parse poison"), letter.lastError());
    }

    @Test
    void close_with_jobs_prefetched_and_running_loses_none_and_runs_none_twice() throws Exception {
        WorkQueue q = rq().workQueue(newName());
        List<Long> ids = enqueue(q, 40);
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        CountDownLatch busy = new CountDownLatch(2);
        Worker first = q.worker(job -> {
            runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            busy.countDown();
            TimeUnit.MILLISECONDS.sleep(200);
        }, WorkerOptions.defaults().withThreads(2).withPrefetch(2)).start();
        assertTrue(busy.await(LIVENESS.toSeconds(), TimeUnit.SECONDS), "the first worker runs jobs");
        assertTrue(first.close(Duration.ofSeconds(30)), "running handlers finished within the drain");
        assertEquals(0, first.running());
        long afterClose = q.stats().total();
        assertEquals(ids.size() - runs.size(), afterClose, "every job the closed worker ran was acked, the prefetched"
                + " ones given back");
        assertEquals(afterClose, q.stats().ready(), "nothing left leased: prefetched jobs were released at once");
        try (Worker second = q.worker(job -> runs.computeIfAbsent(job.id(), k -> new AtomicInteger())
                .incrementAndGet(), WorkerOptions.defaults().withThreads(4)).start()) {
            eventually("the second worker finished", () -> q.stats().total() == 0);
        }
        assertEquals(Set.copyOf(ids), runs.keySet());
        runs.forEach((id, n) -> assertEquals(1, n.get(), "job " + id + " ran " + n + " times"));
    }

    @Test
    void close_interrupts_a_handler_past_the_deadline_and_gives_its_job_back_without_an_attempt() throws Exception {
        WorkQueue q = rq().workQueue(newName());
        long id = q.enqueue("stuck");
        CountDownLatch started = new CountDownLatch(1);
        Worker w = q.worker(job -> {
            started.countDown();
            TimeUnit.MINUTES.sleep(10);
        }, WorkerOptions.defaults().withThreads(1)).start();
        assertTrue(started.await(LIVENESS.toSeconds(), TimeUnit.SECONDS));
        assertTrue(!w.close(Duration.ofMillis(200)), "the handler did not finish within the drain");
        List<Job> again = q.claim(1);
        assertEquals(1, again.size(), "the interrupted job is due again at once");
        assertEquals(id, again.get(0).id());
        assertEquals(0, again.get(0).failures(), "no attempt counted for a job stopped by close");
        q.ack(again.get(0));
    }

    @Test
    void pause_stops_claiming_and_resume_claims_again() throws Exception {
        WorkQueue q = rq().workQueue(newName());
        AtomicInteger runs = new AtomicInteger();
        try (Worker w = q.worker(job -> runs.incrementAndGet(), WorkerOptions.defaults().withThreads(2)).start()) {
            q.enqueue("before");
            eventually("the first job ran", () -> runs.get() == 1 && q.stats().total() == 0);
            w.pause();
            assertTrue(w.isPaused());
            TimeUnit.MILLISECONDS.sleep(300); // let a claim under way finish
            enqueue(q, 5);
            TimeUnit.MILLISECONDS.sleep(1500);
            assertEquals(1, runs.get(), "a paused worker claims nothing");
            assertEquals(5, q.stats().ready());
            w.resume();
            eventually("resumed", () -> runs.get() == 6 && q.stats().total() == 0);
        }
    }

    @Test
    void a_handler_can_release_or_reschedule_its_job() throws Exception {
        WorkQueue q = rq().workQueue(newName());
        long releaseId = q.enqueue("release me");
        long laterId = q.enqueue("later");
        Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        try (Worker w = q.worker(job -> {
            int n = runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            if (n == 1 && job.id() == releaseId) {
                assertTrue(job.release());
            } else if (n == 1 && job.id() == laterId) {
                assertTrue(job.retryAfter(Duration.ofMillis(300), "not yet"));
                throw new IllegalStateException("ignored: the job was settled by the handler");
            }
        }, WorkerOptions.defaults().withThreads(2)).start()) {
            eventually("both jobs ran twice and were acked", () -> q.stats().total() == 0
                    && runs.getOrDefault(releaseId, new AtomicInteger()).get() == 2
                    && runs.getOrDefault(laterId, new AtomicInteger()).get() == 2);
        }
        assertEquals(Map.of(releaseId, 2, laterId, 2), Map.of(releaseId, runs.get(releaseId).get(), laterId,
                runs.get(laterId).get()));
    }
}
