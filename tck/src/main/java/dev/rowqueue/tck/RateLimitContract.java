package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.RateWindow;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rate limits ({@link WorkQueueOptions#withRateLimit}): claims start at most {@code n} jobs in any window, across
 * consumers and instances, measured on the lease starts the database wrote ({@link Job#leaseUntil()} less the lease);
 * a claim the limit holds back returns fewer jobs, and the limit lets jobs start again once a window has passed. Tagged
 * {@code rate-limits}.
 */
@Tag("rate-limits")
public abstract class RateLimitContract extends Contract {

    private static final Duration LEASE = Duration.ofMinutes(5);

    private WorkQueueOptions limited(int n, Duration window) {
        return WorkQueueOptions.defaults().withLeaseDuration(LEASE).withRateLimit(n, window);
    }

    /** The lease start the claim wrote. */
    private static long start(Job job) {
        return job.leaseUntil().toEpochMilli() - LEASE.toMillis();
    }

    /**
     * @return a description of the first window of {@code windowMs} that holds more than {@code n} of the starts, or
     *         {@code null}
     */
    private static String overfull(List<Job> jobs, int n, long windowMs) {
        List<Long> starts = jobs.stream().map(RateLimitContract::start).sorted().toList();
        for (int i = 0; i + n < starts.size(); i++) {
            if (starts.get(i + n) - starts.get(i) < windowMs) {
                return (n + 1) + " starts within " + (starts.get(i + n) - starts.get(i)) + " ms (window " + windowMs
                        + " ms): " + starts.subList(i, i + n + 1);
            }
        }
        return null;
    }

    @Test
    void a_claim_starts_at_most_the_limit_and_more_once_the_window_has_passed() throws Exception {
        String name = newName();
        Duration window = Duration.ofMillis(1_500);
        WorkQueue q = rq().workQueue(name, limited(3, window));
        q.enqueueAll(Collections.nCopies(10, "job"), Enqueue.defaults());
        long sent = System.nanoTime();
        List<Job> first = q.claim(10);
        assertEquals(3, first.size(), "a queue that started nothing yet starts the limit's jobs at once");
        List<Job> all = new ArrayList<>(first);
        List<Job> held = q.claim(10);
        // the first jobs started after the first claim was sent; on a slow engine the window may be over already
        if (System.nanoTime() - sent < TimeUnit.MILLISECONDS.toNanos(window.toMillis() / 2)) {
            assertEquals(List.of(), held, "no job starts while the window is full");
        }
        all.addAll(held);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (all.size() < 6 && System.nanoTime() < deadline) {
            all.addAll(q.claim(10));
            Thread.sleep(50);
        }
        assertEquals(6, all.stream().map(Job::id).distinct().count(), "jobs start again once the window has passed");
        assertEquals(null, overfull(all, 3, window.toMillis()), "never more than 3 starts in a window");
        assertEquals(4, q.stats().ready(), "the jobs held back stay ready");
    }

    @Test
    void consumers_on_three_instances_never_start_more_than_the_limit_in_any_window() throws Exception {
        String name = newName();
        int limit = 4;
        Duration window = Duration.ofMillis(500);
        rq().workQueue(name).enqueueAll(Collections.nCopies(200, "job"), Enqueue.defaults());
        List<Job> started = new CopyOnWriteArrayList<>();
        Map<Long, Integer> runs = new ConcurrentHashMap<>();
        List<RowQueues> nodes = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(env().builder().build());
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000);
            List<Future<?>> consumers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                WorkQueue q = nodes.get(i % 3).workQueue(name, limited(limit, window));
                boolean acking = i % 2 == 0; // half ack and claim in one call, half claim alone
                consumers.add(pool.submit(() -> {
                    List<Job> mine = new ArrayList<>();
                    while (System.nanoTime() < end) {
                        List<Job> got;
                        if (acking) {
                            Handoff h = q.ackAndClaim(mine, 3);
                            got = h.claimed();
                        } else {
                            mine.forEach(q::ack);
                            got = q.claim(3);
                        }
                        got.forEach(j -> runs.merge(j.id(), 1, Integer::sum));
                        started.addAll(got);
                        mine = got;
                        if (got.isEmpty()) {
                            Thread.sleep(10);
                        }
                    }
                    mine.forEach(q::ack);
                    return null;
                }));
            }
            for (Future<?> f : consumers) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            nodes.forEach(RowQueues::close);
        }
        assertEquals(null, overfull(started, limit, window.toMillis()),
                "never more than " + limit + " starts in any " + window + ", across three instances");
        Set<Long> twice = runs.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        assertEquals(Set.of(), twice, "no job is handed out twice");
        // 2 s at 4 per 500 ms allows about 16 starts plus those of the first window; a loose bound for slow engines
        assertTrue(started.size() >= 2 * limit, "the limit lets jobs start window after window: " + started.size()
                + " starts in 2 s");
        assertEquals(200 - started.size(), rq().workQueue(name).stats().total(), "every started job was acked once");
    }

    @Test
    void any_handle_reads_the_window_the_claims_hold() throws Exception {
        String name = newName();
        Duration window = Duration.ofSeconds(2);
        WorkQueue q = rq().workQueue(name, limited(3, window));
        WorkQueue plain = rq().workQueue(name); // no options, as the console's and the command line's handles
        q.enqueueAll(Collections.nCopies(8, "job"), Enqueue.defaults());
        assertEquals(Optional.empty(), plain.rateWindow(), "no rate-limited claim started a job yet");
        long sent = System.nanoTime();
        List<Job> first = q.claim(2);
        assertEquals(2, first.size());
        RateWindow w = plain.rateWindow().orElseThrow(() -> new AssertionError("a claim started jobs: a window"));
        long read = System.nanoTime() - sent;
        assertEquals(3, w.limit(), "the claims' limit");
        assertEquals(window, w.window(), "the claims' window");
        assertEquals(2, w.total(), "jobs the limit let start");
        long latest = first.stream().mapToLong(RateLimitContract::start).max().orElseThrow();
        assertEquals(latest, w.lastStart().toEpochMilli(), "the latest lease start");
        if (read < TimeUnit.MILLISECONDS.toNanos(window.toMillis() / 2)) {
            assertEquals(2, w.started(), "both started within the window");
            assertEquals(1, w.remaining());
        }
        // a claim with another limit: the settings follow the claims that start jobs
        WorkQueue wider = rq().workQueue(name, limited(5, window));
        List<Job> more = wider.claim(8);
        RateWindow w5 = plain.rateWindow().orElseThrow();
        assertEquals(5, w5.limit(), "the limit of the claim that started jobs last");
        assertEquals(2 + more.size(), w5.total());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (plain.rateWindow().orElseThrow().started() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        RateWindow later = plain.rateWindow().orElseThrow();
        assertEquals(0, later.started(), "no start within the window once it has passed");
        assertEquals(5, later.remaining());
        assertEquals(2 + more.size(), later.total(), "the total stays");
    }

    @Test
    void a_rate_limit_combines_with_a_per_key_limit() {
        String name = newName();
        WorkQueue q = rq().workQueue(name, limited(3, Duration.ofMinutes(10)).withMaxLeasedPerKey(1));
        for (String key : List.of("a", "a", "b", "b", "c", "c", "d", "d")) {
            q.enqueue("job-" + key, Enqueue.defaults().withKey(key));
        }
        List<Job> first = q.claim(8);
        assertEquals(3, first.size(), "the rate limit: 3 of 8 due jobs, " + first);
        Set<String> keys = new HashSet<>();
        first.forEach(j -> assertTrue(keys.add(j.key()), "one job per key: " + first));
        first.forEach(q::ack);
        assertEquals(List.of(), q.claim(8), "the window's 3 starts are used: acks free keys, not the rate");
    }
}
