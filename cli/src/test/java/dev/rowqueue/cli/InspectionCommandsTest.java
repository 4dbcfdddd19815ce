package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ring, work, counter and queues against an H2 database prepared through the API. */
class InspectionCommandsTest {

    private String url;
    private DriverManagerDataSource ds;
    private RowQueues rq;

    @BeforeEach
    void database() {
        url = "jdbc:h2:mem:inspect_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        ds = new DriverManagerDataSource(url, null, null);
        rq = RowQueues.builder(ds).build();
    }

    @AfterEach
    void shutdown() throws Exception {
        rq.close();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    private Cli.Result cli(String... args) {
        String[] withUrl = new String[args.length + 2];
        System.arraycopy(args, 0, withUrl, 0, args.length);
        withUrl[args.length] = "--url";
        withUrl[args.length + 1] = url;
        return Cli.run(withUrl);
    }

    @Test
    void queues_lists_the_catalog_with_contents() {
        assertEquals("No rowqueue queues in this database.", cli("queues").out().lines().skip(1).findFirst()
                .orElseThrow());
        RingQueue fruit = rq.ring("fruit", 5);
        fruit.pushAll("basket", List.of("apples", "pears"));
        rq.workQueue("mail").enqueue("hello");
        rq.counters("booksales").increment("Bulldozer");
        Cli.Result r = cli("queues");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("H2 "), r.out());
        assertTrue(r.out().matches("(?s).*\\| booksales \\| counters table \\| +\\| +\\| [-0-9T:.Z]+ \\| booksales +\\|"
                + " 1 counter +\\|.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\| fruit +\\| ring +\\| +5 \\| SAFE +\\|.*\\| fruit, fruit_head \\|"
                + " 1 group, 2 entries +\\|.*"), r.out());
        assertTrue(r.out().contains("| 1 ready, 0 scheduled, 0 leased, 0 dead |"), r.out());
    }

    @Test
    void work_stats_by_key_counts_each_keys_jobs_and_work_enqueue_takes_keys() {
        WorkQueue mail = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxLeasedPerKey(1)).create();
        Cli.Result keyed = cli("work", "enqueue", "mail", "a", "b", "--key", "tenant-7");
        assertEquals(0, keyed.code(), keyed::toString);
        Cli.Result unique = cli("work", "enqueue", "mail", "c", "--key", "tenant-8", "--unique");
        assertEquals(0, unique.code(), unique::toString);
        Cli.Result again = cli("work", "enqueue", "mail", "d", "--unique-key", "tenant-8");
        assertEquals(0, again.code(), again::toString);
        long id = Long.parseLong(unique.out().replaceAll("(?s)^enqueued job (\\d+) .*", "$1"));
        assertTrue(again.out().startsWith("held: job " + id + " "), again.out());
        assertEquals(3, mail.stats().total(), "the second unique enqueue wrote nothing");
        mail.enqueue("e");
        assertEquals(List.of("a", "c", "e"), mail.claim(10).stream().map(Job::payload).toList(),
                "tenant-7's second job waits for its first: the keys were stored");
        Cli.Result stats = cli("work", "stats", "mail", "--by-key");
        assertEquals(0, stats.code(), stats::toString);
        assertTrue(stats.out().contains("by key: 2 keys; jobs without a key are not listed"), stats.out());
        assertTrue(stats.out().matches("(?s).*\\| tenant-7 \\| +1 \\| +0 \\| +1 \\| +0 \\| +2 \\|.*"), stats.out());
        assertTrue(stats.out().matches("(?s).*\\| tenant-8 \\| +0 \\| +0 \\| +1 \\| +0 \\| +1 \\|.*"), stats.out());
        assertEquals(ExitCode.USAGE, cli("work", "enqueue", "mail", "x", "--unique").code(), "--unique needs --key");
        assertEquals(ExitCode.USAGE, cli("work", "enqueue", "mail", "x", "y", "--unique-key", "k").code(),
                "a unique key names one job");
        assertEquals(ExitCode.USAGE, cli("work", "enqueue", "mail", "x", "--key", "").code(), "an empty key");
        assertEquals(4, mail.stats().total());
    }

    @Test
    void ring_list_shows_groups_and_entries_and_ring_push_appends() {
        RingQueue fruit = rq.ring("fruit", 3);
        fruit.pushAll("basket", List.of("apples", "oranges", "pears", "bananas"));
        fruit.push("bowl", "kiwi");

        Cli.Result list = cli("ring", "list", "FRUIT");
        assertEquals(0, list.code(), list::toString);
        assertTrue(list.out().startsWith("ring fruit: capacity 3, strategy SAFE, 2 groups\ngroup basket (3 of 3)\n"),
                list.out());
        String basket = list.out().substring(list.out().indexOf("group basket"), list.out().indexOf("group bowl"));
        assertTrue(basket.indexOf("oranges") < basket.indexOf("pears") && basket.indexOf("pears")
                < basket.indexOf("bananas"), basket);
        assertFalse(basket.contains("apples"), "evicted");
        assertTrue(basket.contains("|   2 |"), basket);

        Cli.Result newest = cli("ring", "list", "fruit", "--group", "basket", "--newest-first");
        assertEquals(0, newest.code(), newest::toString);
        assertTrue(newest.out().indexOf("bananas") < newest.out().indexOf("oranges"), newest.out());
        assertFalse(newest.out().contains("kiwi"));

        Cli.Result push = cli("ring", "push", "fruit", "bowl", "plums", "figs");
        assertEquals(0, push.code(), push::toString);
        assertEquals("pushed 2 entries to fruit group bowl: seq 2 to 3\n", push.out());
        assertEquals(List.of("kiwi", "plums", "figs"), fruit.oldestFirst("bowl").stream().map(RingEntry::payload)
                .toList());
    }

    @Test
    void ring_commands_never_create_a_queue_by_accident() {
        rq.workQueue("mail").create();
        Cli.Result missing = cli("ring", "list", "nosuch");
        assertEquals(ExitCode.NOT_FOUND, missing.code(), missing::toString);
        assertTrue(missing.err().contains("no ring named 'nosuch' in this database"), missing.err());

        Cli.Result wrongKind = cli("ring", "push", "mail", "g", "x");
        assertEquals(ExitCode.NOT_FOUND, wrongKind.code(), wrongKind::toString);
        assertTrue(wrongKind.err().contains("'mail' is a work queue, not a ring"), wrongKind.err());

        assertEquals(ExitCode.NOT_FOUND, cli("ring", "push", "views", "article-1", "alice").code());
        assertTrue(rq.queues().stream().noneMatch(q -> q.name().equals("views")));

        Cli.Result create = cli("ring", "push", "views", "article-1", "alice", "--capacity", "10");
        assertEquals(0, create.code(), create::toString);
        assertTrue(create.out().startsWith("created ring views (capacity 10, strategy SAFE)\n"), create.out());
        assertEquals(10, rq.ring("views", 10).capacity());

        Cli.Result otherCapacity = cli("ring", "push", "views", "article-1", "bob", "--capacity", "5");
        assertEquals(ExitCode.USAGE, otherCapacity.code(), otherCapacity::toString);
    }

    @Test
    void work_stats_dead_revive_and_enqueue() {
        WorkQueue mail = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
        long hello = mail.enqueue("hello");
        mail.enqueue("later", Enqueue.defaults().withDelay(Duration.ofHours(1)));
        long poison = mail.enqueue("poison", Enqueue.defaults().withPriority(9));
        Job job = mail.claim(1).get(0);
        assertEquals(poison, job.id());
        mail.nack(job, Duration.ZERO, "SMTP 550 | no such user");

        Cli.Result stats = cli("work", "stats", "mail");
        assertEquals(0, stats.code(), stats::toString);
        assertTrue(stats.out().contains("|     1 |         1 |      0 |    1 |     3 |"), stats.out());
        assertFalse(stats.out().contains("rate limit"), "no rate-limited claim: no rate line");

        WorkQueue calls = rq.workQueue("calls", WorkQueueOptions.defaults().withRateLimit(5, Duration.ofMinutes(1)));
        calls.enqueueAll(List.of("a", "b", "c"), Enqueue.defaults());
        Job started = calls.claim(2).get(1);
        Cli.Result limited = cli("work", "stats", "calls");
        assertEquals(0, limited.code(), limited::toString);
        assertTrue(limited.out().contains("rate limit: 2 of 5 started in the last 60000 ms (3 more may start now);"
                + " 2 started under the limit in all, the latest at "
                + started.leaseUntil().minus(WorkQueueOptions.defaults().leaseDuration())), limited.out());

        Cli.Result dead = cli("work", "dead", "mail");
        assertEquals(0, dead.code(), dead::toString);
        assertTrue(dead.out().startsWith("work queue mail: 1 dead\n"), dead.out());
        assertTrue(dead.out().contains("SMTP 550 | no such user | poison"), dead.out());

        Cli.Result notDead = cli("work", "revive", "mail", String.valueOf(hello));
        assertEquals(ExitCode.NOT_FOUND, notDead.code(), notDead::toString);
        assertTrue(notDead.err().contains("no dead job with id [" + hello + "]"), notDead.err());

        Cli.Result revive = cli("work", "revive", "mail", String.valueOf(poison));
        assertEquals(0, revive.code(), revive::toString);
        assertEquals(new QueueStats(2, 1, 0, 0), mail.stats());
        assertEquals(ExitCode.USAGE, cli("work", "revive", "mail").code(), "ids or --all");
        Cli.Result notANumber = cli("work", "revive", "mail", "abc");
        assertEquals(ExitCode.USAGE, notANumber.code(), notANumber::toString);
        assertTrue(notANumber.err().contains("a job id must be a number (as 'work dead' lists them), got 'abc'"),
                notANumber.err());
        assertEquals(0, cli("work", "revive", "mail", "--all").code());

        Cli.Result enqueue = cli("work", "enqueue", "mail", "a", "b", "--priority", "7", "--delay", "0s");
        assertEquals(0, enqueue.code(), enqueue::toString);
        assertTrue(enqueue.out().startsWith("enqueued 2 jobs to mail: id "), enqueue.out());
        List<Job> claimed = mail.claim(3);
        assertEquals(List.of("poison", "a", "b"), claimed.stream().map(Job::payload).toList(),
                "the revived priority 9, then priority 7 before hello's 0");

        Cli.Result delayed = cli("work", "enqueue", "mail", "c", "--delay", "PT1H");
        assertEquals(0, delayed.code(), delayed::toString);
        assertEquals(2, mail.stats().scheduled());
        assertEquals(ExitCode.USAGE, cli("work", "enqueue", "mail", "d", "--delay", "soon").code());

        assertEquals(ExitCode.NOT_FOUND, cli("work", "enqueue", "outbox", "x").code());
        Cli.Result created = cli("work", "enqueue", "outbox", "x", "--create");
        assertEquals(0, created.code(), created::toString);
        assertEquals(1, rq.workQueue("outbox").stats().ready());
    }

    @Test
    void counter_get_and_incr() {
        Counters sales = rq.counters("booksales");
        sales.set("Bulldozer", 12);
        sales.set("Red Horse Hill", -3);

        Cli.Result all = cli("counter", "get", "booksales");
        assertEquals(0, all.code(), all::toString);
        assertTrue(all.out().contains("| Bulldozer      |    12 |\n| Red Horse Hill |    -3 |"), all.out());

        Cli.Result some = cli("counter", "get", "booksales", "Bulldozer", "never used");
        assertTrue(some.out().contains("| never used |     0 |"), some.out());

        Cli.Result incr = cli("counter", "incr", "booksales", "Bulldozer");
        assertEquals(0, incr.code(), incr::toString);
        assertEquals("13\n", incr.out());
        assertEquals("1\n", cli("counter", "incr", "booksales", "Bulldozer", "--by", "-12").out());
        assertEquals(1, sales.get("Bulldozer"));

        assertEquals(ExitCode.NOT_FOUND, cli("counter", "incr", "votes", "yes").code());
        assertEquals("1\n", cli("counter", "incr", "votes", "yes", "--create").out());
        assertEquals(ExitCode.NOT_FOUND, cli("counter", "get", "nosuch").code());
    }

    @Test
    void the_password_comes_from_the_environment_or_a_prompt_never_from_an_option() throws Exception {
        String secured = "jdbc:h2:mem:secured_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        try (Connection c = java.sql.DriverManager.getConnection(secured, "admin", "s3cret")) {
            RowQueues.builder(new DriverManagerDataSource(secured, "admin", "s3cret")).build()
                    .counters("votes").increment("yes");

            Cli.Result fromEnv = Cli.run(CliEnv.of(Map.of("ROWQUEUE_PASSWORD", "s3cret"), false, null), "counter",
                    "get", "votes", "--url", secured, "--user", "admin");
            assertEquals(0, fromEnv.code(), fromEnv::toString);

            Cli.Result prompted = Cli.run(CliEnv.of(Map.of(), true, "s3cret"), "counter", "get", "votes", "--url",
                    secured, "-u", "admin");
            assertEquals(0, prompted.code(), prompted::toString);

            Cli.Result none = Cli.run(CliEnv.of(Map.of(), false, null), "counter", "get", "votes", "--url", secured,
                    "--user", "admin");
            assertEquals(ExitCode.DATABASE, none.code(), none::toString);
            assertTrue(none.err().contains("cannot connect to jdbc:h2:mem:secured_"), none.err());
            assertFalse(none.err().contains("DB_CLOSE_DELAY"), "URL parameters are not shown");

            Cli.Result option = Cli.run("counter", "get", "votes", "--url", secured, "--user", "admin",
                    "--password", "s3cret");
            assertEquals(ExitCode.USAGE, option.code(), "there is no password option");
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
