package dev.rowqueue.tck;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.rowqueue.tck.WorkQueueContract.LONG;
import static dev.rowqueue.tck.WorkQueueContract.payloads;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endless round-robin batches of "Endless loops" over live jobs, behind a named, persisted cursor. */
public abstract class RotationContract extends Contract {

    private WorkQueue queue(int jobs) {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(LONG)).create();
        List<String> payloads = new ArrayList<>();
        for (int i = 1; i <= jobs; i++) {
            payloads.add("m" + i);
        }
        if (jobs > 0) {
            q.enqueueAll(payloads, Enqueue.defaults());
        }
        return q;
    }

    private static List<Job> handBack(WorkQueue q, List<Job> jobs) {
        jobs.forEach(q::release);
        return jobs;
    }

    @Test
    void rotation_returns_the_next_jobs_after_the_cursor_in_id_order() {
        WorkQueue q = queue(7);
        assertEquals(List.of("m1", "m2", "m3"), payloads(handBack(q, q.rotate("c", 3))));
        assertEquals(List.of("m4", "m5", "m6"), payloads(handBack(q, q.rotate("c", 3))));
    }

    @Test
    void rotation_wraps_around_inside_a_batch() {
        WorkQueue q = queue(5);
        handBack(q, q.rotate("c", 4));
        assertEquals(List.of("m5", "m1", "m2", "m3"), payloads(handBack(q, q.rotate("c", 4))));
    }

    @Test
    void rotation_ignores_priority_and_follows_ids() {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withLeaseDuration(LONG)).create();
        q.enqueue("low", Enqueue.defaults().withPriority(-5));
        q.enqueue("high", Enqueue.defaults().withPriority(5));
        assertEquals(List.of("low", "high"), payloads(q.rotate("c", 2)));
    }

    @Test
    void a_batch_larger_than_the_live_jobs_returns_each_job_once() {
        WorkQueue q = queue(3);
        handBack(q, q.rotate("c", 1));
        assertEquals(List.of("m2", "m3", "m1"), payloads(q.rotate("c", 10)));
    }

    @Test
    void rotation_skips_dead_delayed_and_leased_jobs() {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withMaxAttempts(1).withLeaseDuration(LONG));
        q.enqueueAll(List.of("m1", "m2", "m3", "m4"), Enqueue.defaults());
        q.enqueue("m5-delayed", Enqueue.defaults().withDelay(LONG));
        List<Job> claimed = q.claim(2); // m1, m2
        q.nack(claimed.get(0), Duration.ZERO); // m1 dead
        assertEquals(List.of("m3", "m4"), payloads(q.rotate("c", 10)), "m1 dead, m2 leased, m5 not due");
    }

    @Test
    void rotated_jobs_are_leased_and_can_be_acked_or_nacked() {
        WorkQueue q = queue(3);
        List<Job> batch = q.rotate("c", 3);
        assertEquals(List.of(), q.claim(3), "rotated jobs are leased");
        assertTrue(q.ack(batch.get(0)));
        assertTrue(q.nack(batch.get(1), Duration.ZERO));
        assertTrue(q.release(batch.get(2)));
        assertEquals(List.of("m2", "m3"), payloads(q.claim(3)));
    }

    @Test
    void the_cursor_is_persisted_and_shared_by_name_across_nodes() {
        WorkQueue q = queue(6);
        handBack(q, q.rotate("shared", 2));
        try (RowQueues other = env().builder().build()) {
            WorkQueue again = other.workQueue(q.name(), WorkQueueOptions.defaults().withLeaseDuration(LONG));
            assertEquals(List.of("m3", "m4"), payloads(handBack(again, again.rotate("shared", 2))));
        }
        assertEquals(List.of("m5", "m6"), payloads(q.rotate("shared", 2)));
    }

    @Test
    void independent_cursors_keep_independent_positions() {
        WorkQueue q = queue(4);
        handBack(q, q.rotate("a", 3));
        assertEquals(List.of("m1"), payloads(handBack(q, q.rotate("b", 1))));
        assertEquals(List.of("m4"), payloads(q.rotate("a", 1)));
    }

    @Test
    void rotating_an_empty_queue_returns_nothing_and_keeps_the_cursor() {
        WorkQueue q = queue(0);
        assertEquals(List.of(), q.rotate("c", 5));
        q.enqueueAll(List.of("m1", "m2"), Enqueue.defaults());
        assertEquals(List.of("m1", "m2"), payloads(q.rotate("c", 5)));
    }

    @Test
    void cursor_names_that_differ_only_in_case_are_different_cursors() {
        WorkQueue q = queue(4);
        handBack(q, q.rotate("c", 2));
        assertEquals(List.of("m1"), payloads(handBack(q, q.rotate("C", 1))));
        assertEquals(List.of("m3"), payloads(q.rotate("c", 1)));
    }

    @Test
    void acked_jobs_leave_the_rotation() {
        WorkQueue q = queue(4);
        for (Job job : q.rotate("c", 2)) {
            q.ack(job);
        }
        assertEquals(List.of("m3", "m4"), payloads(handBack(q, q.rotate("c", 5))));
        assertEquals(List.of("m3", "m4"), payloads(q.rotate("c", 5)));
    }
}
