package dev.rowqueue.console;

import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.CountingDataSource;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a console left open costs the database, in statements (counted by the TCK's CountingDataSource, never timed):
 * per refresh interval, however many tabs and operators look.
 */
class ConsoleCostTest {
    private static final long INTERVAL = TimeUnit.SECONDS.toNanos(10);
    private static final String BEARER = "Bearer " + ConsoleFixture.TOKEN;

    private CountingDataSource counting;
    private RowQueues rq;
    private final AtomicLong clock = new AtomicLong();
    private Console console;

    @BeforeEach
    void database() {
        String url = "jdbc:h2:mem:cost_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        counting = new CountingDataSource(new DriverManagerDataSource(url, "sa", ""));
        // activity is read, not recorded here: a minute's write of this instance would land in the counts
        rq = RowQueues.builder(counting).recordActivity(false).build();
        ConsoleFixture.dead(rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1)), "x", "boom");
        for (String name : List.of("mail", "webhooks", "reports")) {
            rq.workQueue(name, WorkQueueOptions.defaults().withMaxAttempts(1)).enqueueAll(List.of("a", "b"),
                    dev.rowqueue.Enqueue.defaults());
        }
        rq.ring("recent_views", 10).push("article-1", "alice");
        rq.counters("booksales").increment("Bulldozer");
        console = Console.builder(new RowQueuesConsoleData(rq, TimeUnit.NANOSECONDS.toMillis(INTERVAL), clock::get))
                .token(ConsoleFixture.TOKEN).build();
        get("/");
        get("/queues/mail"); // handles opened, tables probed: once per process, not per refresh
    }

    @AfterEach
    void shutdown() throws Exception {
        rq.close();
        try (Connection c = counting.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        }
    }

    private void get(String path) {
        ConsoleResponse r = console.handle(ConsoleRequest.builder("GET", path).header("Authorization", BEARER)
                .remoteAddress("127.0.0.1").build());
        assertEquals(200, r.status(), r::bodyText);
    }

    /** @return the statements the pages cost */
    private long statements(String... paths) {
        long before = counting.executions();
        for (String p : paths) {
            get(p);
        }
        return counting.executions() - before;
    }

    @Test
    void an_open_overview_costs_the_catalog_and_three_reads_per_work_queue_per_interval_however_many_look() {
        clock.addAndGet(INTERVAL);
        long first = statements("/");
        assertEquals(1 + 3 * 3, first, "the catalog, then per work queue stats(), its oldest ready job and its"
                + " activity(); rings and counters cost nothing");
        assertEquals(0, statements("/", "/", "/api/queues"), "more tabs, more operators, the JSON API: the same reads");
        clock.addAndGet(INTERVAL - 1);
        assertEquals(0, statements("/"), "still within the interval");
        clock.addAndGet(1);
        assertEquals(10, statements("/", "/"), "the next interval");
        rq.workQueue("reports").claim(2);
        clock.addAndGet(INTERVAL);
        assertEquals(1 + 3 + 3 + 2, statements("/"), "no ready job: its age is not asked for");
        System.out.printf("overview of 3 work queues, 1 ring, 1 counters table: %d statements per refresh interval%n",
                first);
    }

    @Test
    void an_open_work_queue_page_costs_its_count_and_its_dead_letters_per_interval() {
        clock.addAndGet(INTERVAL);
        long page = statements("/queues/mail");
        assertEquals(1 + 1 + 1 + 1 + 1, page, "catalog, stats(), activity() for the charts, rateWindow() (one"
                + " statement: no rate-limited claim ever started a job), deadLetters()");
        assertEquals(0, statements("/queues/mail", "/api/queues/mail"));
        clock.addAndGet(INTERVAL);
        assertEquals(1 + 3 * 3 + 1 + 1, statements("/", "/queues/mail"), "with the overview open too: its counts"
                + " and activity are shared");
        clock.addAndGet(INTERVAL);
        assertEquals(1 + 1 + 1 + 1, statements("/queues/webhooks"), "no dead letters: not even asked for");
        System.out.printf("work queue page: %d statements per refresh interval (4 without dead letters)%n", page);
    }

    @Test
    void an_open_schedules_page_costs_one_statement_per_interval_and_one_probe_without_schedule_tables() {
        clock.addAndGet(INTERVAL);
        assertEquals(1, statements("/schedules"), "no schedule tables: one probe, and nothing created");
        assertEquals(0, statements("/schedules", "/api/schedules"), "more tabs, the JSON API: the same read");
        try (RowQueues other = RowQueues.builder(counting).scheduler(false).recordActivity(false).build()) {
            other.schedules().define("nightly", "0 3 * * *", ScheduleOptions.forQueue("mail"));
            other.schedules().define("often", "rate:PT1M", ScheduleOptions.forQueue("reports"));
        }
        clock.addAndGet(INTERVAL);
        long first = statements("/schedules"); // the tables found and checked: once per process
        clock.addAndGet(INTERVAL);
        long page = statements("/schedules");
        assertEquals(3, page, "list(): one statement for all schedules (their next fire times are computed from"
                + " it), lastFires(): one for all, nodes(): one for the schedulers' heartbeats");
        assertEquals(0, statements("/schedules", "/api/schedules", "/schedules"));
        clock.addAndGet(INTERVAL);
        assertEquals(3 + (1 + 3 * 3), statements("/schedules", "/"), "with the overview open too: the two add up");
        System.out.printf("schedules page: %d statements per refresh interval (the first visit after the tables"
                + " appeared: %d; without schedule tables: 1 probe)%n", page, first);
    }

    @Test
    void a_change_drops_the_queues_cached_reads_so_the_next_page_shows_it() {
        clock.addAndGet(INTERVAL);
        statements("/queues/mail");
        long id = rq.workQueue("mail").deadLetters(1).get(0).id();
        ConsoleResponse r = console.handle(ConsoleRequest.builder("POST", "/api/queues/mail/dead/" + id + "/revive")
                .header("Authorization", BEARER).remoteAddress("127.0.0.1").build());
        assertEquals(200, r.status(), r::bodyText);
        assertEquals(2, statements("/queues/mail"), "stats() and activity() again at once (no dead letter left to"
                + " list)");
    }
}
