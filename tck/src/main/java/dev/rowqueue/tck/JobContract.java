package dev.rowqueue.tck;

import dev.rowqueue.CancelOutcome;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.JobInfo;
import dev.rowqueue.JobPage;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import dev.rowqueue.QueueActivity;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProviders;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The job API of operators (issue 26): a job looked up by id in each state, jobs listed by state and key in keyset
 * pages, cancellation of ready and scheduled jobs only (never of one a consumer holds, whatever claim races it), and
 * the activity per minute. Tagged {@code jobs}, so that {@code -Dgroups=jobs} runs these alone on a target.
 */
@Tag("jobs")
public abstract class JobContract extends Contract {

    /** Long enough that a test never sees a lease or a delay end by accident. */
    private static final Duration LONG = Duration.ofHours(1);

    private WorkQueue queue() {
        return rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(LONG).withMaxAttempts(3));
    }

    @Test
    void a_job_is_looked_up_by_id_in_each_state() {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(LONG).withMaxAttempts(1));
        Instant before = Instant.now().minusSeconds(60);
        long ready = q.enqueue("r <b>", Enqueue.defaults().withPriority(3).withKey("k1"));
        long scheduled = q.enqueue("s", Enqueue.defaults().withUniqueKey("u1").withDelay(LONG));
        long leased = q.enqueue("l");
        long dead = q.enqueue("d");

        JobInfo r = q.job(ready).orElseThrow();
        assertEquals(JobState.READY, r.state());
        assertEquals("r <b>", r.payload());
        assertEquals(3, r.priority());
        assertEquals("k1", r.key());
        assertEquals(0, r.failures());
        assertNotNull(r.dueAt());
        assertTrue(r.enqueuedAt().isAfter(before), r.toString());
        assertEquals(0, r.leaseToken());
        assertNull(r.leaseUntil());

        JobInfo s = q.job(scheduled).orElseThrow();
        assertEquals(JobState.SCHEDULED, s.state());
        assertEquals("u1", s.uniqueKey());
        assertTrue(s.dueAt().isAfter(s.enqueuedAt().plus(Duration.ofMinutes(59))), s.toString());

        // claim order: priority, then due time, then id: ready (prio 3), leased, dead
        List<Job> claimed = q.claim(3);
        assertEquals(List.of(ready, leased, dead), claimed.stream().map(Job::id).toList());
        assertTrue(q.ack(claimed.get(0)));
        assertTrue(q.nack(claimed.get(2), Duration.ZERO, "boom <i>"));

        JobInfo l = q.job(leased).orElseThrow();
        assertEquals(JobState.LEASED, l.state());
        assertEquals(claimed.get(1).leaseToken(), l.leaseToken(), "the holder's lease token");
        // the lease end the claim reported, as it computed it: MariaDB's claim reads its clock apart from the row's
        // (1 to 13 ms apart were seen)
        assertTrue(Math.abs(Duration.between(claimed.get(1).leaseUntil(), l.leaseUntil()).toMillis()) <= 1000,
                claimed.get(1).leaseUntil() + " vs " + l.leaseUntil());
        assertNull(l.dueAt());

        JobInfo d = q.job(dead).orElseThrow();
        assertEquals(JobState.DEAD, d.state());
        assertEquals(1, d.failures());
        assertEquals("boom <i>", d.lastError());
        assertEquals(0, d.leaseToken());

        assertTrue(q.job(ready).isEmpty(), "an acked job is gone");
    }

    @Test
    void jobs_are_listed_by_state_newest_or_oldest_first_in_pages_without_gaps_or_duplicates_while_jobs_are_added() {
        WorkQueue q = queue();
        List<Long> ready = new ArrayList<>(q.enqueueAll(nCopies(23, "ready"), Enqueue.defaults()));
        List<Long> scheduled = q.enqueueAll(nCopies(4, "later"), Enqueue.defaults().withDelay(LONG));

        // oldest first: jobs enqueued between pages come at the end, once
        List<Long> seen = new ArrayList<>();
        JobPage page = q.jobs(JobQuery.all().withState(JobState.READY).oldestFirst().withLimit(5));
        int pages = 1;
        while (true) {
            page.jobs().forEach(j -> {
                assertEquals(JobState.READY, j.state());
                seen.add(j.id());
            });
            assertTrue(page.jobs().size() <= 5);
            if (page.next().isEmpty()) {
                break;
            }
            if (pages <= 3) {
                ready.add(q.enqueue("added"));
                q.enqueue("added later", Enqueue.defaults().withDelay(LONG));
            }
            page = q.jobs(page.next().get());
            pages++;
            assertTrue(pages < 50, "the pages never end: the cursor does not move");
        }
        assertEquals(ready, seen, "every ready job once, in id order");
        assertEquals(6, pages, "26 jobs in pages of 5");

        // newest first: jobs enqueued after the first page do not appear; the rest once, highest id first
        List<Long> expected = new ArrayList<>(ready);
        expected.sort((a, b) -> Long.compare(b, a));
        List<Long> newest = new ArrayList<>();
        page = q.jobs(JobQuery.all().withState(JobState.READY).withLimit(7));
        while (true) {
            page.jobs().forEach(j -> newest.add(j.id()));
            if (page.next().isEmpty()) {
                break;
            }
            q.enqueue("added after the first page");
            page = q.jobs(page.next().get());
            assertTrue(newest.size() < 500, "the pages never end: the cursor does not move");
        }
        assertEquals(expected, newest);

        JobPage sched = q.jobs(JobQuery.all().withState(JobState.SCHEDULED).oldestFirst().withLimit(1000));
        assertEquals(7, sched.jobs().size());
        assertEquals(scheduled, sched.jobs().subList(0, 4).stream().map(JobInfo::id).toList());
        assertFalse(sched.more());
        assertTrue(q.jobs(JobQuery.all().withState(JobState.DEAD)).jobs().isEmpty());
        assertTrue(q.jobs(JobQuery.all().withState(JobState.LEASED)).jobs().isEmpty());
        assertEquals(q.stats().total(), countAll(q), "every state together is every job");
    }

    private static long countAll(WorkQueue q) {
        long n = 0;
        JobPage page = q.jobs(JobQuery.all().withLimit(10));
        while (true) {
            n += page.jobs().size();
            if (page.next().isEmpty()) {
                return n;
            }
            page = q.jobs(page.next().get());
            assertTrue(n < 5000, "the pages never end: the cursor does not move");
        }
    }

    @Test
    void jobs_of_one_key_are_found_in_each_state_and_leased_ones_are_listed_as_leased() {
        WorkQueue q = queue();
        long a1 = q.enqueue("a1", Enqueue.defaults().withKey("tenant-a"));
        q.enqueue("b1", Enqueue.defaults().withKey("tenant-b"));
        long a2 = q.enqueue("a2", Enqueue.defaults().withKey("tenant-a").withDelay(LONG));
        q.enqueue("none");
        assertEquals(List.of(a2, a1), ids(q.jobs(JobQuery.all().withKey("tenant-a"))));
        assertEquals(List.of(a2), ids(q.jobs(JobQuery.all().withState(JobState.SCHEDULED).withKey("tenant-a"))));
        assertEquals(List.of(), ids(q.jobs(JobQuery.all().withKey("tenant-c"))));
        Job job = q.claim(1).get(0);
        assertEquals(a1, job.id());
        JobPage leased = q.jobs(JobQuery.all().withState(JobState.LEASED).withKey("tenant-a"));
        assertEquals(List.of(a1), ids(leased));
        assertEquals(job.leaseToken(), leased.jobs().get(0).leaseToken());
    }

    private static List<Long> ids(JobPage page) {
        return page.jobs().stream().map(JobInfo::id).toList();
    }

    @Test
    void a_ready_or_a_scheduled_job_is_cancelled_and_never_delivered() {
        WorkQueue q = queue();
        long ready = q.enqueue("ready", Enqueue.defaults().withUniqueKey("once"));
        long scheduled = q.enqueue("scheduled", Enqueue.defaults().withDelay(LONG));
        long other = q.enqueue("other");
        assertEquals(CancelOutcome.CANCELLED, q.cancel(ready));
        assertEquals(CancelOutcome.CANCELLED, q.cancel(scheduled));
        assertTrue(q.job(ready).isEmpty());
        assertTrue(q.job(scheduled).isEmpty());
        assertEquals(List.of(other), q.claim(10).stream().map(Job::id).toList());
        assertEquals(CancelOutcome.NOT_FOUND, q.cancel(ready), "a second cancel finds nothing");
        assertNotEquals(ready, q.enqueue("again", Enqueue.defaults().withUniqueKey("once")),
                "a cancelled job gives up its unique key");
    }

    @Test
    void a_leased_job_is_not_cancelled_and_its_consumer_still_finishes_it() {
        WorkQueue q = queue();
        long id = q.enqueue("busy");
        Job job = q.claim(1).get(0);
        CancelOutcome outcome = q.cancel(id);
        assertEquals(CancelOutcome.LEASED, outcome);
        assertFalse(outcome.cancelled());
        assertTrue(outcome.reason().contains("leased"), outcome.reason());
        assertEquals(JobState.LEASED, q.job(id).orElseThrow().state());
        assertTrue(q.ack(job), "the consumer's ack still works");
        assertTrue(q.job(id).isEmpty());
    }

    @Test
    void a_dead_job_is_not_cancelled_and_an_unknown_id_is_not_found() {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withMaxAttempts(1));
        long id = q.enqueue("doomed");
        q.nack(q.claim(1).get(0), Duration.ZERO, "failed");
        assertEquals(CancelOutcome.DEAD, q.cancel(id));
        assertEquals(List.of(id), q.deadLetters(10).stream().map(Job::id).toList(), "still a dead letter");
        assertEquals(CancelOutcome.NOT_FOUND, q.cancel(id + 1000));
        assertTrue(q.job(id + 1000).isEmpty());
        assertTrue(q.job(Long.MAX_VALUE).isEmpty());
    }

    @Test
    void bad_input_is_refused_before_any_sql() {
        WorkQueue q = queue();
        refused(() -> q.job(0));
        refused(() -> q.job(-1));
        refused(() -> q.cancel(0));
        refused(() -> q.cancel(Long.MIN_VALUE));
        refused(() -> JobQuery.all().withLimit(0));
        refused(() -> JobQuery.all().withLimit(JobQuery.MAX_LIMIT + 1));
        refused(() -> JobQuery.all().withAfter(-1));
        refused(() -> JobQuery.all().withKey(""));
        long before = env().counting().executions();
        assertThrows(NullPointerException.class, () -> q.jobs(null));
        assertThrows(NullPointerException.class, () -> JobQuery.all().withKey(null));
        assertThrows(NullPointerException.class, () -> JobQuery.all().withState(null));
        assertEquals(before, env().counting().executions(), "no SQL may run for refused input");
    }

    private void refused(Executable call) {
        long before = env().counting().executions();
        assertThrows(IllegalArgumentException.class, call);
        assertEquals(before, env().counting().executions(), "no SQL may run for refused input");
    }

    @Test
    void activity_counts_enqueued_finished_and_failed_jobs_per_minute_and_writes_them_on_close() {
        String name = newName();
        try (RowQueues recording = env().builder().recordActivity(true).build()) {
            WorkQueue q = recording.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(LONG));
            q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults());
            q.enqueue("d");
            List<Job> jobs = q.claim(3);
            assertTrue(q.ack(jobs.get(0)));
            assertTrue(q.nack(jobs.get(1), Duration.ZERO, "failed"));
            q.ackAndClaim(List.of(jobs.get(2)), 1);
            QueueActivity a = q.activity();
            assertEquals(QueueActivity.MINUTES, a.enqueued().size());
            assertEquals(4, a.totalEnqueued());
            assertEquals(2, a.totalFinished());
            assertEquals(1, a.totalFailed());
            assertTrue(a.start().isBefore(Instant.now().minus(Duration.ofMinutes(58))), a.start().toString());
        }
        // written on close: an instance that records nothing reads them from the table
        QueueActivity written = rq().workQueue(name).activity();
        assertEquals(4, written.totalEnqueued());
        assertEquals(2, written.totalFinished());
        assertEquals(1, written.totalFailed());
        long minutesWithWork = written.enqueued().stream().filter(n -> n > 0).count();
        assertTrue(minutesWithWork >= 1 && minutesWithWork <= 2, written.toString());
    }

    @Test
    void activity_counts_first_attempts_started_and_their_wait_from_enqueue() throws Exception {
        String name = newName();
        try (RowQueues recording = env().builder().recordActivity(true).build()) {
            WorkQueue q = recording.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(LONG));
            q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults());
            Thread.sleep(300); // every wait is at least this long
            List<Job> first = q.claim(2);
            assertEquals(2, first.size());
            assertTrue(q.nack(first.get(0), Duration.ZERO, "again"));
            List<Job> second = q.claim(2); // the third job's first attempt, and a retry that is not counted
            assertEquals(2, second.size());
            QueueActivity a = q.activity();
            assertEquals(3, a.started().stream().mapToLong(Long::longValue).sum(), a.toString());
            assertTrue(a.waitTotalMillis().stream().mapToLong(Long::longValue).sum() >= 3 * 300, a.toString());
            assertTrue(a.waitMaxMillis().stream().mapToLong(Long::longValue).max().orElse(0) >= 300, a.toString());
        }
        QueueActivity written = rq().workQueue(name).activity(); // written on close
        assertEquals(3, written.started().stream().mapToLong(Long::longValue).sum(), written.toString());
        long total = written.waitTotalMillis().stream().mapToLong(Long::longValue).sum();
        long max = written.waitMaxMillis().stream().mapToLong(Long::longValue).max().orElse(0);
        assertTrue(total >= 900 && max >= 300 && max <= total, written.toString());
        int minute = written.started().indexOf(written.started().stream().filter(n -> n > 0).findFirst().orElseThrow());
        assertTrue(written.meanWaitMillis(minute) >= 300, written.toString());
    }

    @Test
    void an_activity_table_made_before_the_wait_columns_gets_them_on_first_use() {
        String name = newName();
        rq().workQueue(name).enqueue("before");
        Dialect dialect = env().jdbc(c -> DialectProviders.named(env().database().dialect())
                .create(DatabaseProduct.of(c.getMetaData()), env().target().dialectOptions(), c));
        env().execute("DROP TABLE " + Dialect.ACTIVITY_TABLE);
        for (String ddl : dialect.ddl().activityBeforeWaits()) {
            env().execute(ddl);
        }
        try (RowQueues upgraded = env().builder().recordActivity(true).build()) {
            WorkQueue q = upgraded.workQueue(name, WorkQueueOptions.defaults().withLeaseDuration(LONG));
            q.enqueue("after");
            assertEquals(2, q.claim(2).size());
        }
        QueueActivity written = rq().workQueue(name).activity();
        assertEquals(1, written.totalEnqueued(), "written on close, with the wait columns added");
        assertEquals(2, written.started().stream().mapToLong(Long::longValue).sum(), written.toString());
    }

    @Test
    void the_activity_table_missing_from_an_older_catalog_is_created_on_first_use() {
        String name = newName();
        rq().workQueue(name).enqueue("before");
        env().execute("DROP TABLE " + dev.rowqueue.spi.Dialect.ACTIVITY_TABLE); // as before the job API
        try (RowQueues upgraded = env().builder().recordActivity(true).build()) {
            WorkQueue q = upgraded.workQueue(name);
            q.enqueue("after");
            assertEquals(0, rq().workQueue(name).activity().totalEnqueued(), "the table is there, and empty");
        }
        assertEquals(1, rq().workQueue(name).activity().totalEnqueued(), "written on close");
    }

    @Test
    void a_cancel_racing_a_claim_never_both_succeed() throws Exception {
        WorkQueue q = queue();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            int cancelled = 0;
            for (int round = 0; round < 40; round++) {
                long id = q.enqueue("contested " + round);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<CancelOutcome> cancel = pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return q.cancel(id);
                });
                Future<List<Job>> claim = pool.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    return q.claim(1);
                });
                CancelOutcome outcome = StuckStatements.await(cancel, Duration.ofSeconds(60), "the cancel");
                List<Job> got = StuckStatements.await(claim, Duration.ofSeconds(60), "the claim");
                if (outcome == CancelOutcome.CANCELLED) {
                    cancelled++;
                    assertTrue(got.isEmpty(), "round " + round + ": cancelled and claimed");
                    assertTrue(q.job(id).isEmpty());
                } else {
                    assertEquals(CancelOutcome.LEASED, outcome, "round " + round);
                    assertEquals(List.of(id), got.stream().map(Job::id).toList(), "round " + round);
                    assertTrue(q.ack(got.get(0)), "round " + round + ": the claimer still holds it");
                }
            }
            assertEquals(0, q.stats().total());
            System.out.println("cancel racing claim: the cancel won " + cancelled + " of 40 rounds");
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<String> nCopies(int n, String payload) {
        return java.util.Collections.nCopies(n, payload);
    }
}
