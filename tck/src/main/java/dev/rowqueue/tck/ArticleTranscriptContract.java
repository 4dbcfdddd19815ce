package dev.rowqueue.tck;

import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.rowqueue.tck.RingContract.payloads;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transcripts of the five articles rowqueue's techniques come from, replayed as contracts (the articles are
 * listed in docs/sources.md). Sequence numbers start at 1 where the articles start at 0; the relations between them
 * are the articles'.
 */
public abstract class ArticleTranscriptContract extends Contract {

    /** Baron Schwartz, "How to implement a queue in SQL": a table of five fruits, then bananas push apples out. */
    @Test
    void bananas_evict_apples_from_the_five_fruit_queue() {
        RingQueue q = rq().ring(newName(), 5);
        long apples = q.push("fruit", "apples");
        for (String fruit : List.of("oranges", "peaches", "cherries", "pears")) {
            q.push("fruit", fruit);
        }
        assertEquals(List.of("apples", "oranges", "peaches", "cherries", "pears"), payloads(q.oldestFirst("fruit")));
        long bananas = q.push("fruit", "bananas");
        assertEquals(apples + 5, bananas, "bananas wrap around to the slot apples held");
        assertEquals(List.of("oranges", "peaches", "cherries", "pears", "bananas"), payloads(q.oldestFirst("fruit")));
    }

    /** "MySQL Queues, part II — groups of queues": five fruits and five vegetables a day. */
    @Test
    void fruit_and_vegetable_groups_each_keep_their_last_five() {
        RingQueue q = rq().ring(newName(), 5);
        q.push("f", "apple");
        q.push("f", "orange");
        q.push("v", "okra");
        assertEquals(List.of("apple", "orange"), payloads(q.oldestFirst("f")));
        assertEquals(List.of("okra"), payloads(q.oldestFirst("v")));
        q.push("v", "squash");
        q.push("f", "peach");
        q.push("f", "cherries");
        q.push("f", "pear");
        q.push("v", "celery");
        assertEquals(List.of("apple", "orange", "peach", "cherries", "pear"), payloads(q.oldestFirst("f")));
        assertEquals(List.of("okra", "squash", "celery"), payloads(q.oldestFirst("v")));
        q.push("f", "banana");
        assertEquals(List.of("orange", "peach", "cherries", "pear", "banana"), payloads(q.oldestFirst("f")),
                "banana wrapped onto apple's slot");
        q.push("v", "beet");
        q.push("v", "spinach");
        q.push("v", "cucumber");
        assertEquals(List.of("squash", "celery", "beet", "spinach", "cucumber"), payloads(q.oldestFirst("v")));
        assertEquals(List.of("banana", "pear", "cherries", "peach", "orange"), payloads(q.newestFirst("f")),
                "all fruits eaten, most recent first");
    }

    /**
     * "Endless loops" (EXPLAIN EXTENDED): 20 messages, batches of 10 fetched round-robin. After messages 5, 10 and 15
     * fail three times (attempt &lt; 3 is live), the batches skip them and wrap around inside a batch. The article's
     * listing of the very first batch shows 9 rows while its second batch starts at 11; rowqueue returns the full
     * first batch, 1 to 10.
     */
    @Test
    void rotation_wraps_around_after_5_10_and_15_exhaust_their_attempts() {
        WorkQueue q = rq().workQueue(newName(), WorkQueueOptions.defaults().withMaxAttempts(3));
        List<String> messages = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            messages.add("Message " + i);
        }
        List<Long> ids = q.enqueueAll(messages, dev.rowqueue.Enqueue.defaults());
        Set<Long> failing = Set.of(ids.get(4), ids.get(9), ids.get(14));

        assertEquals(messages(1, 10), headers(sendBatch(q, failing)));
        assertEquals(messages(11, 20), headers(sendBatch(q, failing)));
        for (int lap = 0; lap < 2; lap++) { // 5, 10 and 15 fail on every lap until their third attempt
            sendBatch(q, failing);
            sendBatch(q, failing);
        }
        assertEquals(3, q.stats().dead(), "5, 10 and 15 are dead after three attempts");

        assertEquals(List.of("Message 1", "Message 2", "Message 3", "Message 4", "Message 6", "Message 7",
                "Message 8", "Message 9", "Message 11", "Message 12"), headers(sendBatch(q, Set.of())));
        assertEquals(List.of("Message 13", "Message 14", "Message 16", "Message 17", "Message 18", "Message 19",
                "Message 20", "Message 1", "Message 2", "Message 3"), headers(sendBatch(q, Set.of())),
                "the batch rolls over right inside the result: 1 follows 20");
    }

    /** Fetches the next batch; failing messages are nacked (an attempt), the others handed back unsent. */
    private static List<Job> sendBatch(WorkQueue q, Set<Long> failing) {
        List<Job> batch = q.rotate("sender", 10);
        for (Job job : batch) {
            if (failing.contains(job.id())) {
                assertTrue(q.nack(job, Duration.ZERO, "SMTP 451"));
            } else {
                assertTrue(q.release(job));
            }
        }
        return batch;
    }

    private static List<String> headers(List<Job> jobs) {
        return jobs.stream().map(Job::payload).collect(Collectors.toList());
    }

    private static List<String> messages(int from, int to) {
        List<String> m = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            m.add("Message " + i);
        }
        return m;
    }

    /** The MySQL Cookbook's "Using Single-Row Sequence Generators": the booksales table. */
    @Test
    void book_sales_counters_increment_and_return_the_new_count_atomically() {
        Counters booksales = rq().counters(newName());
        List<String> titles = List.of("Red Horse Hill", "Sparkplug of the Hornets", "Bulldozer",
                "The Long Trains Roll", "Who Rides in the Dark?");
        titles.forEach(t -> booksales.set(t, 0));
        assertEquals(1, booksales.increment("Bulldozer"), "you just purchased copy 1");
        assertEquals(1, booksales.get("Bulldozer"));
        assertEquals(13, booksales.increment("Bulldozer", 12), "a dozen copies at once");
        assertEquals(0, booksales.get("Red Horse Hill"));
        booksales.set("Red Horse Hill", -10);
        assertEquals(-9, booksales.increment("Red Horse Hill"), "sequences may start at negative values");
        assertEquals(-19, booksales.increment("Red Horse Hill", -10), "and decrease");
        assertEquals(10, booksales.increment("Sparkplug of the Hornets", 10));
        assertEquals(20, booksales.increment("Sparkplug of the Hornets", 10), "the sequence 10, 20, 30, ...");
        titles.forEach(t -> booksales.set(t, 0)); // a new month
        assertEquals(Map.of("Red Horse Hill", 0L, "Sparkplug of the Hornets", 0L, "Bulldozer", 0L,
                "The Long Trains Roll", 0L, "Who Rides in the Dark?", 0L), booksales.all());
        assertEquals(1, booksales.increment("Bulldozer"), "you're the 1st buyer this month");
    }

    /**
     * "mysql 队列 实现并发读" (MySQL queue: concurrent reads): a claim marks the first matching row and hands it to one reader
     * only; when nothing matches, the claim says so instead of returning a stale row.
     */
    @Test
    void a_claim_hands_each_row_to_one_reader_and_reports_an_empty_queue() {
        WorkQueue targets = rq().workQueue(newName());
        targets.enqueue("C1");
        targets.enqueue("C2");
        Job first = targets.claim(1).get(0);
        Job second = targets.claim(1).get(0);
        assertEquals(Set.of("C1", "C2"), Set.of(first.payload(), second.payload()));
        assertEquals(List.of(), targets.claim(1), "an empty queue is reported as such, never as the last row");
    }
}
