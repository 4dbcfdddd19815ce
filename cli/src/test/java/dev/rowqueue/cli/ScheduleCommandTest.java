package dev.rowqueue.cli;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rowqueue schedule ...} against an H2 database. */
class ScheduleCommandTest {

    private String url;
    private DriverManagerDataSource ds;
    private RowQueues rq;

    @BeforeEach
    void database() {
        url = "jdbc:h2:mem:schedule_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        ds = new DriverManagerDataSource(url, null, null);
        rq = RowQueues.builder(ds).scheduler(false).build();
        rq.workQueue("reports").create();
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
    void add_list_next_pause_resume_trigger_delete() {
        assertTrue(cli("schedule", "list").out().contains("No schedules in this database."));
        Cli.Result add = cli("schedule", "add", "daily", "0 9 * * MON-FRI", "--queue", "reports", "--zone",
                "Europe/Berlin", "--missed", "EACH:3", "--payload", "report {slot}");
        assertEquals(0, add.code(), add::toString);
        assertTrue(add.out().contains("schedule daily: cron:0 9 * * MON-FRI@Europe/Berlin into reports"), add.out());
        ScheduleInfo info = rq.schedules().get("daily").orElseThrow();
        assertEquals(MissedSlots.each(3), info.options().missed());
        assertEquals("report {slot}", info.options().payload());
        assertEquals(0, cli("schedule", "add", "daily", "0 9 * * 1-5", "--queue", "reports", "--zone",
                "Europe/Berlin", "--missed", "EACH:3", "--payload", "report {slot}").code(), "the same again");
        Cli.Result conflict = cli("schedule", "add", "daily", "0 10 * * *", "--queue", "reports");
        assertEquals(2, conflict.code(), conflict::toString);
        assertTrue(conflict.err().contains("exists with another definition"), conflict.err());
        assertTrue(conflict.err().contains("add --replace to replace it"), "names the flag: " + conflict.err());
        Cli.Result replaced = cli("schedule", "add", "daily", "rate:PT1H", "--queue", "reports", "--replace");
        assertEquals(0, replaced.code(), replaced::toString);
        assertEquals("rate:PT1H", rq.schedules().get("daily").orElseThrow().schedule().toString());
        Cli.Result list = cli("schedule", "list");
        assertEquals(0, list.code(), list::toString);
        assertTrue(list.out().matches("(?s).*\\| daily +\\| rate:PT1H +\\| reports +\\| [-0-9T:.Z]+ +\\| never +\\|"
                + " active +\\| ONCE +\\|.*"), list.out());
        Cli.Result next = cli("schedule", "next", "daily", "-n", "3");
        assertEquals(0, next.code(), next::toString);
        assertEquals(3, next.out().lines().map(Instant::parse).count());
        assertEquals(0, cli("schedule", "pause", "daily").code());
        assertTrue(rq.schedules().get("daily").orElseThrow().paused());
        assertTrue(cli("schedule", "list").out().contains("paused"));
        assertEquals(0, cli("schedule", "resume", "daily").code());
        Cli.Result trigger = cli("schedule", "trigger", "daily");
        assertEquals(0, trigger.code(), trigger::toString);
        assertEquals(1, rq.workQueue("reports").stats().total());
        assertEquals(0, cli("schedule", "delete", "daily").code());
        assertTrue(rq.schedules().get("daily").isEmpty());
    }

    /** Issue 37: the list says when each schedule last fired, and whether any scheduler process is alive. */
    @Test
    void list_shows_the_last_fire_and_whether_a_scheduler_is_alive() throws Exception {
        rq.schedules().define("often", "rate:PT1S", dev.rowqueue.ScheduleOptions.forQueue("reports"));
        Cli.Result none = cli("schedule", "list");
        assertEquals(0, none.code(), none::toString);
        assertTrue(none.out().contains("No scheduler seen in the last 30 s"), none.out());
        assertTrue(none.out().matches("(?s).*\\| often +\\| rate:PT1S +\\| reports +\\| [-0-9T:.Z]+ +\\| never +\\|.*"),
                none.out());
        try (RowQueues cron = RowQueues.builder(ds).nodeName("cron-host").build()) {
            cron.schedules().startScheduler(); // starts its scheduler, which fires "often" and beats in rowqueue_nodes
            long end = System.nanoTime() + 30_000_000_000L;
            while ((rq.schedules().lastFires().get("often") == null
                    || rq.nodes().stream().noneMatch(n -> n.scheduler() && n.alive())) && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            Cli.Result alive = cli("schedule", "list");
            assertEquals(0, alive.code(), alive::toString);
            assertTrue(alive.out().contains("1 scheduler alive: cron-host on "
                    + java.net.InetAddress.getLocalHost().getHostName() + ", process " + ProcessHandle.current().pid()),
                    alive.out());
            assertTrue(alive.out().matches("(?s).*\\| often +\\| rate:PT1S +\\| reports +\\| [-0-9T:.Z]+ +\\|"
                    + " 20[-0-9T:.Z]+ +\\| active +\\|.*"), alive.out());
        }
    }

    @Test
    void an_unknown_name_or_queue_exits_4_and_bad_input_exits_2() {
        for (String command : new String[]{"pause", "resume", "trigger", "delete", "next"}) {
            Cli.Result r = cli("schedule", command, "nope");
            assertEquals(4, r.code(), command + ": " + r);
        }
        assertEquals(2, cli("schedule", "add", "x", "0 25 * * *", "--queue", "reports").code());
        assertEquals(2, cli("schedule", "add", "x", "rate:PT0S", "--queue", "reports").code());
        assertEquals(2, cli("schedule", "add", "x", "@daily", "--queue", "reports", "--zone", "Mars/Base").code());
        assertEquals(4, cli("schedule", "add", "x", "@daily", "--queue", "nosuchqueue").code(), "no such queue");
        assertTrue(rq.schedules().list().isEmpty());
    }
}
