package dev.rowqueue.examples;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.h2.jdbcx.JdbcDataSource;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * All three queue kinds on an in-memory H2 database, in the order the README explains them. Each step names the
 * article its technique comes from (docs/sources.md).
 */
public final class QuickStart {

    private QuickStart() {
    }

    /**
     * @param args ignored
     */
    public static void main(String[] args) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:quickstart;DB_CLOSE_DELAY=-1");

        try (RowQueues rq = RowQueues.builder(dataSource).build()) {
            System.out.println("rowqueue on " + rq.database().productName() + " " + rq.database().productVersion()
                    + ", dialect " + rq.database().dialect() + "\n");

            // 1. A capped FIFO ring: the newest 5 entries per group (the fruit queue of Baron Schwartz's
            //    "How to implement a queue in SQL")
            RingQueue fruit = rq.ring("fruit", 5);
            for (String f : List.of("apples", "oranges", "peaches", "cherries", "pears", "bananas")) {
                long seq = fruit.push("today", f);
                System.out.printf("push %-9s -> seq %d   ring now: %s%n", f, seq, payloads(fruit.oldestFirst("today")));
            }
            System.out.println("bananas evicted apples; newest first: " + payloads(fruit.newestFirst("today")) + "\n");

            // 2. The last 3 viewers of each article: one group per article in one table
            //    ("MySQL Queues, part II — groups of queues")
            RingQueue viewers = rq.ring("recent_views", 3);
            viewers.pushAll("article-42", List.of("alice", "bob", "carol", "dave"));
            viewers.push("article-7", "erin");
            for (String article : viewers.groups()) {
                System.out.println(article + " last viewers: " + payloads(viewers.newestFirst(article)));
            }
            System.out.println();

            // 3. A work queue with priorities, retries and a dead letter
            //    ("mysql 队列 实现并发读", MySQL queue: concurrent reads)
            WorkQueue mail = rq.workQueue("outgoing_mail", WorkQueueOptions.defaults().withMaxAttempts(2));
            mail.enqueue("newsletter");
            mail.enqueue("password reset", Enqueue.defaults().withPriority(10));
            mail.enqueue("bounces", Enqueue.defaults().withPriority(5));
            List<Job> batch = mail.claim(10);
            System.out.println("claimed in priority order: " + batch.stream().map(Job::payload).toList());
            mail.ack(batch.get(0));
            mail.ack(batch.get(2));
            mail.nack(batch.get(1), Duration.ZERO, "SMTP 451 try later");
            Job retry = mail.claim(1).get(0);
            System.out.println("retried '" + retry.payload() + "' after " + retry.failures() + " failed attempt(s)");
            mail.nack(retry, Duration.ZERO, "SMTP 550 mailbox unavailable");
            System.out.println("dead letters: " + mail.deadLetters(10).stream()
                    .map(j -> j.payload() + " (" + j.lastError() + ")").toList());
            System.out.println("stats: " + mail.stats() + "\n");

            // 4. Round-robin batches that wrap around ("Endless loops")
            WorkQueue outbox = rq.workQueue("outbox");
            outbox.enqueueAll(List.of("m1", "m2", "m3", "m4", "m5"), Enqueue.defaults());
            for (int round = 1; round <= 3; round++) {
                List<Job> jobs = outbox.rotate("sender", 3);
                System.out.println("rotation " + round + ": " + jobs.stream().map(Job::payload).toList());
                jobs.forEach(outbox::release);
            }
            System.out.println();

            // 5. Counters: atomic increment-and-get (the MySQL Cookbook's "Using Single-Row Sequence Generators")
            Counters sales = rq.counters("booksales");
            System.out.println("you just bought copy " + sales.increment("Bulldozer") + " of Bulldozer");
            System.out.println("a dozen more: copy " + sales.increment("Bulldozer", 12));
            System.out.println("ids reserved for a batch import: " + sales.allocate("import_ids", 100));
        }
    }

    private static List<String> payloads(List<RingEntry> entries) {
        return entries.stream().map(RingEntry::payload).collect(Collectors.toList());
    }
}
