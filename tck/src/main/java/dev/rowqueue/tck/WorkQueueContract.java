package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Handoff;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Work queues: claim with leases, ack, nack with retries, dead letters (the article "mysql 队列 实现并发读", MySQL
 * queue: concurrent reads, and today's practice).
 */
public abstract class WorkQueueContract extends Contract {

    /** Long enough that a test never sees a lease end by accident. */
    static final Duration LONG = Duration.ofHours(1);
    /** Short enough that a test waits for a lease to end. */
    static final Duration SHORT = Duration.ofMillis(300);
    /** A bound on waiting for something that must happen; not a performance limit. */
    static final Duration PATIENCE = Duration.ofSeconds(30);

    WorkQueue queue(WorkQueueOptions options) {
        return rq().workQueue(newName(), options).create();
    }

    WorkQueue queue() {
        return queue(WorkQueueOptions.defaults().withLeaseDuration(LONG));
    }

    static List<String> payloads(List<Job> jobs) {
        return jobs.stream().map(Job::payload).collect(Collectors.toList());
    }

    static Job claimOne(WorkQueue q) {
        List<Job> jobs = q.claim(1, PATIENCE);
        assertEquals(1, jobs.size(), "a job became claimable within " + PATIENCE);
        return jobs.get(0);
    }

    @Test
    void a_consumer_never_creates_a_queue_and_finds_it_once_a_producer_has() {
        String name = newName();
        WorkQueue consumer = rq().workQueue(name);
        assertEquals(List.of(), consumer.claim(1), "nothing to claim from a queue that does not exist");
        assertEquals(0, consumer.stats().total());
        assertEquals(List.of(), consumer.deadLetters(5));
        assertTrue(rq().queues().stream().noneMatch(q -> q.name().equals(name)), "the claim created nothing");
        rq().workQueue(name).enqueue("first");
        assertEquals(List.of("first"), payloads(consumer.claim(1)), "the consumer's handle finds it once created");
    }

    @Test
    void claim_hands_out_higher_priority_first_then_earlier_due_time_then_lower_id() throws Exception {
        WorkQueue q = queue();
        q.enqueue("late-due", Enqueue.defaults().withPriority(1).withDelay(Duration.ofMillis(1000)));
        q.enqueue("p0");
        q.enqueue("p5-first", Enqueue.defaults().withPriority(5));
        q.enqueue("p5-second", Enqueue.defaults().withPriority(5));
        q.enqueue("p-1", Enqueue.defaults().withPriority(-1));
        q.enqueue("early-due", Enqueue.defaults().withPriority(1));
        q.enqueue("not-yet", Enqueue.defaults().withPriority(100).withDelay(LONG));
        TimeUnit.MILLISECONDS.sleep(1300);
        assertEquals(List.of("p5-first", "p5-second", "early-due", "late-due", "p0", "p-1"), payloads(q.claim(10)));
    }

    @Test
    void extreme_priorities_are_ordered_too() {
        WorkQueue q = queue();
        q.enqueue("min", Enqueue.defaults().withPriority(Integer.MIN_VALUE));
        q.enqueue("max", Enqueue.defaults().withPriority(Integer.MAX_VALUE));
        q.enqueue("zero");
        List<Job> jobs = q.claim(3);
        assertEquals(List.of("max", "zero", "min"), payloads(jobs));
        assertEquals(Integer.MAX_VALUE, jobs.get(0).priority());
        assertEquals(Integer.MIN_VALUE, jobs.get(2).priority());
    }

    @Test
    void a_delayed_job_is_not_claimable_before_its_delay() {
        WorkQueue q = queue();
        q.enqueue("later", Enqueue.defaults().withDelay(LONG));
        assertEquals(List.of(), q.claim(1));
        assertEquals(new QueueStats(0, 1, 0, 0), q.stats());
    }

    @Test
    void a_delayed_job_becomes_claimable_once_it_is_due() {
        WorkQueue q = queue();
        q.enqueue("soon", Enqueue.defaults().withDelay(Duration.ofMillis(300)));
        assertEquals("soon", claimOne(q).payload());
    }

    @Test
    void a_claimed_job_is_not_handed_out_again_while_its_lease_lasts() {
        WorkQueue q = queue();
        q.enqueue("only");
        assertEquals(1, q.claim(5).size());
        assertEquals(List.of(), q.claim(5));
        assertEquals(new QueueStats(0, 0, 1, 0), q.stats());
    }

    @Test
    void claim_returns_at_most_the_batch_size() {
        WorkQueue q = queue();
        q.enqueueAll(List.of("a", "b", "c", "d", "e"), Enqueue.defaults());
        assertEquals(List.of("a", "b"), payloads(q.claim(2)));
        assertEquals(List.of("c", "d", "e"), payloads(q.claim(10)));
    }

    @Test
    void a_claimed_job_carries_its_payload_priority_and_lease() {
        WorkQueue q = queue();
        Instant before = Instant.now();
        long id = q.enqueue("hello", Enqueue.defaults().withPriority(7));
        Job job = q.claim(1).get(0);
        assertEquals(id, job.id());
        assertEquals("hello", job.payload());
        assertEquals(7, job.priority());
        assertEquals(0, job.failures());
        assertNull(job.lastError());
        assertNotNull(job.leaseUntil());
        assertTrue(job.leaseUntil().isAfter(job.enqueuedAt()), "the lease ends after the job was enqueued");
        assertTrue(Duration.between(before, job.enqueuedAt()).abs().compareTo(Duration.ofHours(1)) < 0,
                "enqueue time " + job.enqueuedAt() + " is near the current time " + before);
        assertTrue(job.leaseToken() != 0);
    }

    @Test
    void ack_deletes_the_job_and_a_second_ack_returns_false() {
        WorkQueue q = queue();
        q.enqueue("x");
        Job job = q.claim(1).get(0);
        assertTrue(q.ack(job));
        assertFalse(q.ack(job));
        assertEquals(new QueueStats(0, 0, 0, 0), q.stats());
    }

    @Test
    void ack_and_claim_acks_the_finished_jobs_and_claims_the_next_in_claim_order() {
        WorkQueue q = queue();
        q.enqueue("low", Enqueue.defaults().withPriority(1));
        q.enqueue("high", Enqueue.defaults().withPriority(9));
        q.enqueue("mid", Enqueue.defaults().withPriority(5));
        q.enqueue("last", Enqueue.defaults().withPriority(0));
        List<Job> first = q.claim(1);
        assertEquals(List.of("high"), payloads(first));
        Handoff h = q.ackAndClaim(first, 2);
        assertEquals(List.of("mid", "low"), payloads(h.claimed()), "the next jobs, in claim order");
        assertTrue(h.allAcked());
        assertEquals(List.of(), h.lost());
        assertEquals(3, q.stats().total(), "the acked job is gone");
        Handoff next = q.ackAndClaim(h.claimed(), 5);
        assertEquals(List.of("last"), payloads(next.claimed()));
        assertTrue(next.allAcked());
        Job fresh = next.claimed().get(0);
        assertEquals(0, fresh.failures());
        assertNotNull(fresh.leaseUntil());
        assertTrue(fresh.leaseToken() != 0);
        Handoff end = q.ackAndClaim(next.claimed(), 1);
        assertEquals(List.of(), end.claimed(), "nothing left to claim");
        assertTrue(end.allAcked());
        assertEquals(new QueueStats(0, 0, 0, 0), q.stats());
    }

    @Test
    void ack_and_claim_with_nothing_done_is_a_claim() {
        WorkQueue q = queue();
        q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults());
        Handoff h = q.ackAndClaim(List.of(), 2);
        assertEquals(List.of("a", "b"), payloads(h.claimed()));
        assertTrue(h.allAcked());
        assertEquals(List.of("c"), payloads(q.claim(5)), "the claimed jobs are leased");
    }

    @Test
    void ack_and_claim_reports_a_lost_lease_changes_nothing_for_it_and_still_claims() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(SHORT));
        q.enqueue("contended");
        Job stale = q.claim(1).get(0);
        Job current = claimOne(q);
        assertTrue(q.extendLease(current, LONG), "the current holder keeps it for the rest of the test");
        q.enqueue("next");
        Job mine = q.claim(1).get(0);
        Handoff h = q.ackAndClaim(List.of(stale, mine), 5);
        assertEquals(List.of(stale), h.lost(), "the old holder's ack is refused and reported");
        assertFalse(h.allAcked());
        assertEquals(List.of(), h.claimed(), "the only other job is leased to its current holder");
        assertEquals(1, q.stats().total(), "the contended job is still there for its current holder; mine is acked");
        assertTrue(q.ack(current));
    }

    @Test
    void ack_and_claim_never_hands_back_a_job_it_acks_even_after_its_lease_ended() throws Exception {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(SHORT));
        q.enqueue("slow");
        Job slow = q.claim(1).get(0);
        TimeUnit.MILLISECONDS.sleep(SHORT.toMillis() * 2); // the lease ends: the job is claimable again
        Handoff h = q.ackAndClaim(List.of(slow), 3);
        assertTrue(h.allAcked(), "nobody else claimed it, so the late ack still takes effect");
        assertEquals(List.of(), h.claimed(), "the acked job is not claimed again");
        assertEquals(0, q.stats().total());
    }

    @Test
    void an_expired_lease_makes_the_job_claimable_again_and_counts_a_failed_attempt() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(SHORT));
        q.enqueue("crashy");
        Job first = q.claim(1).get(0);
        Job second = claimOne(q);
        assertEquals(first.id(), second.id());
        assertEquals(1, second.failures(), "the lease that ended without an ack counts as a failed attempt");
        assertTrue(second.leaseToken() != first.leaseToken());
    }

    @Test
    void an_ack_after_the_lease_was_lost_to_another_consumer_changes_nothing() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(SHORT));
        q.enqueue("contended");
        Job stale = q.claim(1).get(0);
        Job current = claimOne(q);
        assertFalse(q.ack(stale), "the old holder's ack is refused");
        assertFalse(q.nack(stale, Duration.ZERO), "and so is its nack");
        assertFalse(q.release(stale), "and its release");
        assertEquals(1, q.stats().total(), "the job is still there for its current holder");
        assertTrue(q.ack(current));
    }

    @Test
    void nack_counts_an_attempt_and_retries_after_the_delay() {
        WorkQueue q = queue();
        q.enqueue("flaky");
        Job job = q.claim(1).get(0);
        assertTrue(q.nack(job, LONG, "timeout"));
        assertEquals(List.of(), q.claim(1), "not before the retry delay");
        assertEquals(new QueueStats(0, 1, 0, 0), q.stats());

        WorkQueue q2 = queue();
        q2.enqueue("flaky");
        assertTrue(q2.nack(q2.claim(1).get(0), Duration.ZERO, "boom"));
        Job retried = q2.claim(1).get(0);
        assertEquals(1, retried.failures());
        assertEquals("boom", retried.lastError());
    }

    @Test
    void nack_without_a_delay_uses_the_options_backoff() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(LONG).withRetryBackoff(LONG, LONG));
        q.enqueue("x");
        assertTrue(q.nack(q.claim(1).get(0)));
        assertEquals(new QueueStats(0, 1, 0, 0), q.stats(), "retried after the configured backoff");
    }

    @Test
    void a_job_that_fails_max_attempts_times_becomes_dead_and_is_listed_with_its_error() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withMaxAttempts(2).withLeaseDuration(LONG));
        long id = q.enqueue("poison");
        assertTrue(q.nack(q.claim(1).get(0), Duration.ZERO, "first"));
        assertTrue(q.nack(q.claim(1).get(0), Duration.ZERO, "second"));
        assertEquals(List.of(), q.claim(1), "a dead job is never claimed");
        assertEquals(new QueueStats(0, 0, 0, 1), q.stats());
        List<Job> dead = q.deadLetters(10);
        assertEquals(1, dead.size());
        assertEquals(id, dead.get(0).id());
        assertEquals(2, dead.get(0).failures());
        assertEquals("second", dead.get(0).lastError());
        assertNull(dead.get(0).leaseUntil());
    }

    @Test
    void a_job_whose_consumers_keep_crashing_ends_up_dead_instead_of_looping() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withMaxAttempts(2).withLeaseDuration(SHORT));
        q.enqueue("kills its consumer");
        q.claim(1); // crash 1
        assertEquals(1, claimOne(q).failures()); // crash 2
        List<Job> third = q.claim(1, Duration.ofMillis(1500));
        assertEquals(List.of(), third, "the third delivery would exceed two attempts");
        List<Job> dead = q.deadLetters(10);
        assertEquals(List.of("kills its consumer"), payloads(dead));
        assertTrue(dead.get(0).lastError().contains("lease expired"), dead.get(0).lastError());
    }

    @Test
    void revive_makes_a_dead_job_claimable_again_with_its_attempts_reset() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withMaxAttempts(1).withLeaseDuration(LONG));
        long a = q.enqueue("a");
        q.enqueue("b");
        q.enqueue("c");
        for (Job job : q.claim(3)) {
            q.nack(job, Duration.ZERO, "no");
        }
        assertEquals(3, q.stats().dead());
        assertTrue(q.revive(a));
        assertFalse(q.revive(a), "it is no longer dead");
        assertFalse(q.revive(-1));
        Job revived = q.claim(1).get(0);
        assertEquals(a, revived.id());
        assertEquals(0, revived.failures());
        assertEquals(2, q.reviveAll());
        assertEquals(2, q.claim(5).size());
    }

    @Test
    void purge_dead_deletes_only_dead_jobs() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withMaxAttempts(1).withLeaseDuration(LONG));
        q.enqueue("dies");
        q.nack(q.claim(1).get(0), Duration.ZERO);
        q.enqueue("lives");
        assertEquals(1, q.purgeDead());
        assertEquals(new QueueStats(1, 0, 0, 0), q.stats());
    }

    @Test
    void stats_count_jobs_by_state() {
        WorkQueue q = queue(WorkQueueOptions.defaults().withMaxAttempts(1).withLeaseDuration(LONG));
        q.enqueue("dead");
        q.nack(q.claim(1).get(0), Duration.ZERO);
        q.enqueue("leased");
        q.claim(1);
        q.enqueue("scheduled", Enqueue.defaults().withDelay(LONG));
        q.enqueue("ready-1");
        q.enqueue("ready-2");
        QueueStats stats = q.stats();
        assertEquals(new QueueStats(2, 1, 1, 1), stats);
        assertEquals(5, stats.total());
    }

    @Test
    void release_hands_the_job_back_at_once_without_counting_an_attempt() {
        WorkQueue q = queue();
        q.enqueue("x");
        Job job = q.claim(1).get(0);
        assertTrue(q.release(job));
        Job again = q.claim(1).get(0);
        assertEquals(job.id(), again.id());
        assertEquals(0, again.failures());
    }

    @Test
    void extending_a_lease_keeps_the_job_from_being_claimed_again() throws Exception {
        WorkQueue q = queue(WorkQueueOptions.defaults().withLeaseDuration(SHORT));
        q.enqueue("long work");
        Job job = q.claim(1).get(0);
        assertTrue(q.extendLease(job, LONG));
        TimeUnit.MILLISECONDS.sleep(SHORT.toMillis() * 2);
        assertEquals(List.of(), q.claim(1));
        assertTrue(q.ack(job), "the extended lease still belongs to its holder");
    }

    @Test
    void a_blocking_claim_returns_a_job_enqueued_while_it_waits() throws Exception {
        WorkQueue q = queue();
        CompletableFuture<List<Job>> waiting = CompletableFuture.supplyAsync(() -> q.claim(1, PATIENCE));
        TimeUnit.MILLISECONDS.sleep(300);
        q.enqueue("arrived");
        List<Job> jobs = StuckStatements.await(waiting, PATIENCE.multipliedBy(2), "the blocking claim");
        assertEquals(List.of("arrived"), payloads(jobs));
    }

    @Test
    void a_blocking_claim_returns_nothing_after_its_maximum_wait() {
        WorkQueue q = queue();
        assertEquals(List.of(), q.claim(1, Duration.ofMillis(200)));
        assertEquals(List.of(), q.claim(1, Duration.ZERO));
    }

    @Test
    void enqueue_all_returns_ascending_ids_in_list_order_and_is_claimed_in_that_order() {
        WorkQueue q = queue();
        List<Long> ids = q.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults().withPriority(2));
        assertEquals(3, ids.size());
        assertTrue(ids.get(0) < ids.get(1) && ids.get(1) < ids.get(2), "ids ascend: " + ids);
        List<Job> jobs = q.claim(3);
        assertEquals(ids, jobs.stream().map(Job::id).collect(Collectors.toList()));
    }

    @Test
    void two_queues_do_not_see_each_others_jobs() {
        WorkQueue a = queue();
        WorkQueue b = queue();
        a.enqueue("for a");
        assertEquals(List.of(), b.claim(1));
        assertEquals(List.of("for a"), payloads(a.claim(1)));
    }
}
