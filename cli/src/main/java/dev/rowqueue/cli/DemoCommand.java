package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import picocli.CommandLine.Command;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Runs the three queue kinds on an embedded H2 database in memory and prints the tables after each step, like the
 * transcripts of the five articles rowqueue's techniques come from (listed in docs/sources.md). Each heading names
 * its article.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs ring queues, work queues and counters on an embedded H2 database in memory and prints"
                + " what happened, table by table, like the articles rowqueue comes from. Needs no database.")
final class DemoCommand extends BaseCommand {

    private Endpoint.Opened db;

    @Override
    int run() throws SQLException {
        String url = "jdbc:h2:mem:rowqueue_demo_" + UUID.randomUUID().toString().replace("-", "")
                + ";DB_CLOSE_DELAY=-1";
        try (Endpoint.Opened opened = new Endpoint(url, "sa", "", null, Map.of()).open(true)) {
            db = opened;
            RowQueues rq = opened.rq();
            Terminal t = terminal();
            t.println(t.bold("rowqueue demo") + " on " + opened.describe() + ", in memory\n");
            fruitRing(rq);
            groups(rq);
            workQueue(rq);
            rotation(rq);
            counters(rq);
            t.println(t.bold("That was all three kinds of queue.") + " Next: 'java -jar rowqueue.jar --help', or"
                    + " 'java -jar rowqueue.jar tck --url JDBC_URL' to prove your database.");
        } finally {
            try (Connection c = db == null ? null : db.dataSource().getConnection();
                 Statement s = c == null ? null : c.createStatement()) {
                if (s != null) {
                    s.execute("SHUTDOWN");
                }
            }
        }
        return ExitCode.OK;
    }

    private void heading(String title, String source) {
        Terminal t = terminal();
        t.println(t.cyan(t.bold(title)) + " " + t.dim("(" + source + ")"));
    }

    private void code(String line) {
        terminal().println("  " + terminal().yellow(line));
    }

    private void say(String line) {
        terminal().println("  " + line);
    }

    /** Prints a query's result as the mysql client would. */
    private void show(String sql) throws SQLException {
        Terminal t = terminal();
        t.println(t.dim("rowqueue> ") + sql + ";");
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            String[] headers = new String[md.getColumnCount()];
            for (int i = 0; i < headers.length; i++) {
                headers[i] = md.getColumnLabel(i + 1).toLowerCase(java.util.Locale.ROOT);
            }
            Table table = new Table(headers);
            while (rs.next()) {
                Object[] row = new Object[headers.length];
                for (int i = 0; i < headers.length; i++) {
                    int type = md.getColumnType(i + 1);
                    boolean number = type == Types.BIGINT || type == Types.INTEGER || type == Types.SMALLINT;
                    long n = number ? rs.getLong(i + 1) : 0;
                    row[i] = number ? (rs.wasNull() ? null : (Object) n) : rs.getString(i + 1);
                }
                table.row(row);
            }
            t.print(table);
            t.println(table.size() + (table.size() == 1 ? " row" : " rows") + " in set\n");
        }
    }

    /** Baron Schwartz's "How to implement a queue in SQL": a five-fruit queue; bananas take the slot apples held. */
    private void fruitRing(RowQueues rq) throws SQLException {
        heading("1. A ring of five fruits: bananas evict apples",
                "Baron Schwartz, \"How to implement a queue in SQL\"");
        RingQueue fruit = rq.ring("fruit", 5);
        code("RingQueue fruit = rq.ring(\"fruit\", 5);");
        for (String f : List.of("apples", "oranges", "peaches", "cherries", "pears")) {
            long seq = fruit.push("basket", f);
            code("fruit.push(\"basket\", \"" + f + "\");   // seq " + seq + ", slot " + seq % 5);
        }
        show("SELECT seq, slot, payload AS fruit FROM fruit ORDER BY seq");
        long seq = fruit.push("basket", "bananas");
        code("fruit.push(\"basket\", \"bananas\");  // seq " + seq + ", slot " + seq % 5);
        say("The ring is full: seq " + seq + " mod 5 = " + seq % 5 + " is the slot apples held, so bananas overwrite"
                + " apples in place.");
        show("SELECT seq, slot, payload AS fruit FROM fruit ORDER BY seq");
    }

    /** "MySQL Queues, part II — groups of queues": one table, one capped queue per group (fruit and vegetables). */
    private void groups(RowQueues rq) throws SQLException {
        heading("2. Groups: five fruits and five vegetables a day, in one table",
                "\"MySQL Queues, part II — groups of queues\"");
        RingQueue meals = rq.ring("meals", 5);
        code("RingQueue meals = rq.ring(\"meals\", 5);   // group 'f' for fruit, 'v' for vegetables");
        String[][] pushes = {{"f", "apple"}, {"f", "orange"}, {"v", "okra"}, {"v", "squash"}, {"f", "peach"},
            {"f", "cherries"}, {"f", "pear"}, {"v", "celery"}};
        for (String[] p : pushes) {
            meals.push(p[0], p[1]);
        }
        code("meals.push(\"f\", \"apple\"); meals.push(\"f\", \"orange\"); meals.push(\"v\", \"okra\"); ...");
        show("SELECT grp AS kind, seq, slot, payload AS food FROM meals ORDER BY grp, seq");
        long seq = meals.push("f", "banana");
        code("meals.push(\"f\", \"banana\");   // seq " + seq + " of group f");
        say("Group f was full: banana wrapped onto apple's slot. Group v still has room and is untouched.");
        show("SELECT grp AS kind, seq, slot, payload AS food FROM meals ORDER BY grp, seq");
        say("Newest fruit first: " + meals.newestFirst("f").stream().map(e -> e.payload()).toList() + "\n");
    }

    /** "mysql 队列 实现并发读" (MySQL queue: concurrent reads): claims hand each row to one reader; retries; a dead letter. */
    private void workQueue(RowQueues rq) throws SQLException {
        heading("3. A work queue: each job to one reader, retries, a dead letter",
                "\"mysql 队列 实现并发读\", MySQL queue: concurrent reads");
        WorkQueue targets = rq.workQueue("targets", WorkQueueOptions.defaults().withMaxAttempts(2));
        code("WorkQueue targets = rq.workQueue(\"targets\", WorkQueueOptions.defaults().withMaxAttempts(2));");
        targets.enqueue("crawl example.org");
        targets.enqueue("crawl example.com", Enqueue.defaults().withPriority(5));
        targets.enqueue("crawl example.net");
        code("targets.enqueue(\"crawl example.org\"); targets.enqueue(\"crawl example.com\", Enqueue.defaults().withPriority(5));"
                + " targets.enqueue(\"crawl example.net\");");
        Job a = targets.claim(1).get(0);
        Job b = targets.claim(1).get(0);
        code("targets.claim(1);   // reader A gets '" + a.payload() + "' (highest priority first)");
        code("targets.claim(1);   // reader B gets '" + b.payload() + "', never the same job as A");
        String jobs = "SELECT id, payload, prio, CASE state WHEN 0 THEN 'live' ELSE 'dead' END AS state, attempts,"
                + " CASE WHEN lease_token IS NULL THEN 'no' ELSE 'yes' END AS leased, last_error FROM targets ORDER BY id";
        show(jobs);
        targets.ack(a);
        targets.nack(b, Duration.ZERO, "HTTP 503 Service Unavailable");
        code("targets.ack(a);                               // done: the row is deleted");
        code("targets.nack(b, Duration.ZERO, \"HTTP 503 ...\");  // failed attempt 1 of 2: retried");
        show(jobs);
        List<Job> again = targets.claim(2);
        code("targets.claim(2);   // " + again.stream().map(j -> "'" + j.payload() + "' (attempts " + j.failures()
                + ")").toList());
        for (Job j : again) {
            if (j.failures() > 0) {
                targets.nack(j, Duration.ZERO, "HTTP 503 Service Unavailable");
                code("targets.nack(...)   // '" + j.payload() + "' failed its 2nd attempt: it is dead now");
            } else {
                targets.ack(j);
                code("targets.ack(...)    // '" + j.payload() + "' done");
            }
        }
        show(jobs);
        List<Job> none = targets.claim(1);
        code("targets.claim(1);   // " + none + ": an empty queue says so, it never hands out a stale row");
        Job dead = targets.deadLetters(10).get(0);
        say("Dead letters: " + targets.deadLetters(10).stream().map(j -> "#" + j.id() + " '" + j.payload() + "' ("
                + j.lastError() + ")").toList() + "; stats " + targets.stats());
        targets.revive(dead.id());
        code("targets.revive(" + dead.id() + ");   // ready again, attempts reset: stats " + targets.stats() + "\n");
    }

    /** "Endless loops": batches of 10 in id order behind a cursor, skipping dead jobs and wrapping around. */
    private void rotation(RowQueues rq) throws SQLException {
        heading("4. Endless rotation: batches of 10 that wrap around", "Quassnoi, \"Endless loops\", EXPLAIN EXTENDED");
        WorkQueue queue = rq.workQueue("t_queue", WorkQueueOptions.defaults().withMaxAttempts(3));
        List<String> messages = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            messages.add("Message " + i);
        }
        List<Long> ids = queue.enqueueAll(messages, Enqueue.defaults());
        code("WorkQueue queue = rq.workQueue(\"t_queue\", WorkQueueOptions.defaults().withMaxAttempts(3));");
        code("queue.enqueueAll([\"Message 1\", ..., \"Message 20\"]);");
        Set<Long> failing = Set.of(ids.get(4), ids.get(9), ids.get(14));
        say("Each batch is queue.rotate(\"sender\", 10). Messages 5, 10 and 15 fail to send on every try (nack);"
                + " the others are handed back (release).");
        printBatch(1, send(queue, failing));
        printBatch(2, send(queue, failing));
        for (int lap = 0; lap < 4; lap++) {
            send(queue, failing);
        }
        say("... two more laps: 5, 10 and 15 fail again; after their third failed attempt they are dead ("
                + queue.stats().dead() + " dead).");
        printBatch(7, send(queue, Set.of()));
        say("The batch skips the dead messages.");
        printBatch(8, send(queue, Set.of()));
        say("The batch rolls over right inside the result: 1 follows 20.\n");
    }

    private static List<Job> send(WorkQueue queue, Set<Long> failing) {
        List<Job> batch = queue.rotate("sender", 10);
        for (Job job : batch) {
            if (failing.contains(job.id())) {
                queue.nack(job, Duration.ZERO, "SMTP 451");
            } else {
                queue.release(job);
            }
        }
        return batch;
    }

    private void printBatch(int n, List<Job> batch) {
        Terminal t = terminal();
        t.println(t.dim("rowqueue> ") + "queue.rotate(\"sender\", 10);   // batch " + n);
        Table table = new Table("id", "header", "attempt");
        batch.forEach(j -> table.row(j.id(), j.payload(), j.failures()));
        t.print(table);
        t.println(batch.size() + " rows fetched\n");
    }

    /** The MySQL Cookbook's "Using Single-Row Sequence Generators": the booksales counters. */
    private void counters(RowQueues rq) throws SQLException {
        heading("5. Counters: you just bought copy n",
                "Paul DuBois, MySQL Cookbook, \"Using Single-Row Sequence Generators\"");
        Counters sales = rq.counters("booksales");
        code("Counters booksales = rq.counters(\"booksales\");");
        for (String title : List.of("Red Horse Hill", "Sparkplug of the Hornets", "Bulldozer", "The Long Trains Roll",
                "Who Rides in the Dark?")) {
            sales.set(title, 0);
        }
        code("booksales.set(title, 0);   // for each of five titles");
        String select = "SELECT counter_key AS title, counter_value AS copies FROM booksales ORDER BY counter_key";
        show(select);
        code("booksales.increment(\"Bulldozer\");       // " + sales.increment("Bulldozer")
                + ": \"you just purchased copy 1\", in one atomic step");
        code("booksales.increment(\"Bulldozer\", 12);   // " + sales.increment("Bulldozer", 12) + ": a dozen more");
        code("booksales.increment(\"Red Horse Hill\", -1);   // " + sales.increment("Red Horse Hill", -1)
                + ": counters may go down and below zero");
        dev.rowqueue.CounterBlock block = sales.allocate("order_ids", 100);
        code("booksales.allocate(\"order_ids\", 100);   // ids " + block.first() + " to " + block.last()
                + ": a block of ids for this caller alone");
        show(select);
    }
}
