package dev.rowqueue.console;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.RowQueues;
import dev.rowqueue.Schedule;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleOptions;
import dev.rowqueue.Schedules;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.rowqueue.console.Http.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The schedules page and its API: every schedule escaped with its next fire times; pause, resume and trigger as POSTs
 * with the CSRF token, audited, absent from a read-only console; and a console that creates no schedule table and never
 * starts a scheduler.
 */
class ConsoleSchedulesTest {
    private static final String AUTH = "Bearer " + ConsoleFixture.TOKEN;
    private static final String EVIL_PAYLOAD = "<script>alert(4)</script>";

    private ConsoleFixture f;
    private Http http;
    /** Defines the tests' schedules: another instance, with its scheduler off, so nothing fires by itself. */
    private RowQueues admin;
    private Schedules schedules;

    @BeforeEach
    void start() {
        f = new ConsoleFixture();
        http = f.http();
        admin = RowQueues.builder(f.dataSource).scheduler(false).build();
        schedules = define(admin);
    }

    private static Schedules define(RowQueues rq) {
        Schedules s = rq.schedules();
        s.define("nightly-report", "0 3 * * *", ScheduleOptions.forQueue("mail").withZone("Europe/Berlin")
                .withPayload(EVIL_PAYLOAD).withKey("k<{slot}>").withMissed(MissedSlots.each(5)));
        s.define("sweep", Schedule.every(Duration.ofHours(1)), ScheduleOptions.forQueue("mail"));
        s.pause("sweep");
        return s;
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        f.close();
    }

    private ScheduleInfo info(String name) {
        return schedules.get(name).orElseThrow();
    }

    private static boolean schedulerRunning() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("rowqueue-scheduler"));
    }

    @Test
    void the_page_lists_every_schedule_escaped_with_its_next_three_fire_times() {
        HttpResponse<String> r = http.get("/schedules", "Authorization", AUTH);
        assertEquals(200, r.statusCode(), r.body());
        String page = r.body();
        assertTrue(page.contains("2 recurring schedules in this database"), page);
        assertTrue(page.contains("<td class=\"key\">nightly-report</td><td><code>0 3 * * *</code></td>"
                + "<td>Europe/Berlin</td><td><a href=\"/queues/mail\">mail</a></td>"
                + "<td class=\"state\">active</td><td>each, up to 5</td>"), page);
        assertTrue(page.contains("<code class=\"payload\">&lt;script&gt;alert(4)&lt;/script&gt;</code>"), page);
        assertTrue(page.contains("<code class=\"key\">k&lt;{slot}&gt;</code>"), page);
        assertFalse(page.contains("<script>alert"), page);
        assertTrue(page.contains("<tr class=\"paused\"><td class=\"key\">sweep</td><td><code>rate:PT1H</code></td>"
                + "<td class=\"muted\">—</td>"), page);
        assertTrue(page.contains("<td class=\"state dead\">paused</td><td>once for all</td>"), page);
        for (Instant t : schedules.next("nightly-report", 3)) {
            assertTrue(page.contains("datetime=\"" + t + "\""), "nightly-report fires at " + t + ": " + page);
        }
        for (Instant t : schedules.next("sweep", 3)) {
            assertFalse(page.contains("datetime=\"" + t + "\""), "the paused sweep shows no fire time: " + page);
        }
        assertTrue(page.contains("<td class=\"muted\">none while paused</td>"), page);
        assertTrue(page.contains("action=\"/schedules/nightly-report/pause\""), page);
        assertTrue(page.contains("action=\"/schedules/sweep/resume\""), page);
        assertFalse(page.contains("action=\"/schedules/sweep/pause\""), "a paused schedule has no pause button");
        String overview = http.get("/", "Authorization", AUTH).body();
        assertTrue(overview.contains("<a href=\"/schedules\">Schedules</a>"), "linked from every page's bar");
        assertFalse(schedulerRunning(), "the console started no scheduler");
    }

    @Test
    void pause_resume_and_trigger_are_posts_with_the_csrf_token_refused_without_it_and_audited() throws Exception {
        http.signIn(ConsoleFixture.TOKEN);
        String csrf = http.csrf("/schedules");
        String pause = "/schedules/nightly-report/pause";
        assertEquals(403, http.post(pause, Map.of(), "Cookie", http.cookie).statusCode(), "no token");
        assertEquals(403, http.post(pause, form("csrf", "forged"), "Cookie", http.cookie).statusCode(), "forged");
        assertEquals(403, http.post(pause, form("csrf", csrf), "Cookie", http.cookie, "Origin",
                "http://evil.example").statusCode(), "another origin");
        assertFalse(info("nightly-report").paused(), "not paused by a refused request");
        long jobs = f.mail.stats().total();
        assertEquals(403, http.post("/schedules/nightly-report/trigger", Map.of(), "Cookie", http.cookie)
                .statusCode());
        assertEquals(403, http.post("/api/schedules/nightly-report/trigger", Map.of(), "Cookie", http.cookie)
                .statusCode(), "the API's POSTs from a browser session need the token too");
        assertEquals(jobs, f.mail.stats().total(), "nothing enqueued by a refused trigger");

        HttpResponse<String> paused = http.post(pause, form("csrf", csrf), "Cookie", http.cookie);
        assertEquals(303, paused.statusCode(), paused.body());
        String location = paused.headers().firstValue("Location").orElseThrow();
        assertEquals("/schedules?done=paused&name=nightly-report", location);
        assertTrue(info("nightly-report").paused());
        String after = http.get(location, "Cookie", http.cookie).body();
        assertTrue(after.contains("Schedule nightly-report is paused"), after);
        assertTrue(after.contains("action=\"/schedules/nightly-report/resume\""), "the page shows the change at once");

        HttpResponse<String> resumed = http.post("/schedules/sweep/resume", form("csrf", csrf), "Cookie", http.cookie);
        assertEquals(303, resumed.statusCode());
        assertFalse(info("sweep").paused());

        Instant nextBefore = info("nightly-report").nextFire();
        HttpResponse<String> triggered = http.post("/schedules/nightly-report/trigger", form("csrf", csrf), "Cookie",
                http.cookie);
        assertEquals(303, triggered.statusCode());
        String to = triggered.headers().firstValue("Location").orElseThrow();
        assertTrue(to.matches("/schedules\\?done=triggered&name=nightly-report&id=\\d+"), to);
        long id = Long.parseLong(to.substring(to.lastIndexOf('=') + 1));
        assertEquals(EVIL_PAYLOAD, f.mail.job(id).orElseThrow().payload(), "the schedule's job, in its queue");
        assertEquals(jobs + 1, f.mail.stats().total());
        assertEquals(nextBefore, info("nightly-report").nextFire(), "its slots are unchanged");
        assertTrue(http.get(to, "Cookie", http.cookie).body().contains("Schedule nightly-report enqueued job " + id
                + " into work queue mail now"));

        HttpResponse<String> missing = http.post("/schedules/no-such/pause", form("csrf", csrf), "Cookie", http.cookie);
        assertEquals("/schedules?done=missing", missing.headers().firstValue("Location").orElseThrow());
        assertFalse(schedulerRunning(), "the console started no scheduler");

        String log = Files.readString(Path.of(System.getProperty("org.slf4j.simpleLogger.logFile")));
        String who = "by session \\d+ \\(token sha256:[0-9a-f]{8}\\) from 127\\.0\\.0\\.1\\R";
        assertTrue(log.matches("(?s).*INFO dev\\.rowqueue\\.console\\.audit - rowqueue console: paused schedule"
                + " nightly-report; " + who + ".*"), log);
        assertTrue(log.matches("(?s).*rowqueue console: resumed schedule sweep; " + who + ".*"), log);
        assertTrue(log.matches("(?s).*rowqueue console: triggered schedule nightly-report \\(job " + id + "\\); "
                + who + ".*"), log);
        assertTrue(log.matches("(?s).*WARN dev\\.rowqueue\\.console\\.audit - rowqueue console: refused POST"
                + " /schedules/nightly-report/pause by session.*"), log);
    }

    @Test
    void the_json_api_lists_schedules_and_pauses_resumes_and_triggers_them() {
        HttpResponse<String> list = http.get("/api/schedules", "Authorization", AUTH);
        assertEquals(200, list.statusCode());
        assertEquals("application/json", list.headers().firstValue("Content-Type").orElseThrow().split(";")[0]);
        List<Instant> next = schedules.next("nightly-report", 3);
        assertTrue(list.body().startsWith("{\"schedules\":[{\"name\":\"nightly-report\",\"schedule\":\"cron:0 3 * * *"
                + "@Europe/Berlin\",\"zone\":\"Europe/Berlin\",\"queue\":\"mail\",\"payload\":\"\\u003cscript\\u003e"
                + "alert(4)\\u003c/script\\u003e\",\"key\":\"k\\u003c{slot}\\u003e\",\"missed\":\"EACH:5\",\"paused\":false,"
                + "\"next\":[\"" + next.get(0) + "\",\"" + next.get(1) + "\",\"" + next.get(2) + "\"],\"waitingFor\":null,"
                + "\"createdAt\":\""), list.body());
        assertTrue(list.body().contains("{\"name\":\"sweep\",\"schedule\":\"rate:PT1H\",\"zone\":null,\"queue\":"
                + "\"mail\""), list.body());

        HttpResponse<String> pause = http.post("/api/schedules/nightly-report/pause", Map.of(), "Authorization", AUTH);
        assertEquals(200, pause.statusCode(), pause.body());
        assertEquals("{\"schedule\":\"nightly-report\",\"paused\":true}", pause.body());
        assertTrue(info("nightly-report").paused());
        assertEquals("{\"schedule\":\"sweep\",\"paused\":false}", http.post("/api/schedules/sweep/resume", Map.of(),
                "Authorization", AUTH).body());
        assertFalse(info("sweep").paused());
        HttpResponse<String> trigger = http.post("/api/schedules/sweep/trigger", Map.of(), "Authorization", AUTH);
        assertEquals(200, trigger.statusCode(), trigger.body());
        assertTrue(trigger.body().matches("\\{\"schedule\":\"sweep\",\"triggered\":true,\"job\":\\d+}"),
                trigger.body());
        long id = Long.parseLong(trigger.body().replaceAll("\\D+", " ").trim().split(" ")[0]);
        assertTrue(f.mail.job(id).isPresent());
        assertTrue(http.get("/api/schedules", "Authorization", AUTH).body().contains("\"paused\":true"),
                "the list after a change shows it");

        assertEquals(404, http.post("/api/schedules/no-such/trigger", Map.of(), "Authorization", AUTH).statusCode());
        assertEquals(404, http.post("/api/schedules/%3Cb%3E/pause", Map.of(), "Authorization", AUTH).statusCode());
        assertEquals(405, http.post("/api/schedules", Map.of(), "Authorization", AUTH).statusCode());
        assertEquals(403, http.post("/api/schedules/sweep/pause", Map.of(), "Authorization", AUTH, "Origin",
                "http://evil.example").statusCode());
        assertEquals(401, http.get("/api/schedules").statusCode(), "no credential");
        assertEquals(303, http.get("/schedules").statusCode(), "no credential: to sign-in");
        assertFalse(schedulerRunning(), "the console started no scheduler");
    }

    @Test
    void a_read_only_console_shows_no_schedule_button_and_serves_no_schedule_change() throws Exception {
        try (ConsoleFixture ro = new ConsoleFixture(b -> b.readOnly(true));
             RowQueues other = RowQueues.builder(ro.dataSource).scheduler(false).build()) {
            Schedules s = define(other);
            Http h = ro.http();
            h.signIn(ConsoleFixture.TOKEN);
            String page = h.get("/schedules", "Cookie", h.cookie).body();
            assertTrue(page.contains("nightly-report") && page.contains("read-only"), page);
            assertFalse(page.contains("/pause") || page.contains("/resume") || page.contains("/trigger"), page);
            assertEquals(1, page.split("method=\"post\"", -1).length - 1, "only the sign-out form");
            String csrf = h.csrf("/schedules");
            long jobs = ro.mail.stats().total();
            for (String action : List.of("pause", "resume", "trigger")) {
                for (String name : List.of("nightly-report", "sweep")) {
                    assertEquals(404, h.post("/schedules/" + name + "/" + action, form("csrf", csrf), "Cookie",
                            h.cookie).statusCode(), action + " " + name);
                    assertEquals(404, h.post("/api/schedules/" + name + "/" + action, Map.of(), "Authorization", AUTH)
                            .statusCode(), action + " " + name);
                }
            }
            assertFalse(s.get("nightly-report").orElseThrow().paused());
            assertTrue(s.get("sweep").orElseThrow().paused());
            assertEquals(jobs, ro.mail.stats().total(), "nothing triggered");
            assertEquals(200, h.get("/api/schedules", "Authorization", AUTH).statusCode(), "reading still works");
        }
    }

    @Test
    void a_database_without_schedule_tables_shows_none_and_the_console_creates_nothing() throws Exception {
        String url = "jdbc:h2:mem:empty_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        DataSource ds = new DriverManagerDataSource(url, "sa", "");
        // the defaults: tables created on first use, the scheduler on once schedules() is called
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            Console console = Console.builder(rq).token(ConsoleFixture.TOKEN).build();
            ConsoleResponse page = console.handle(get("/schedules"));
            assertEquals(200, page.status(), page::bodyText);
            assertTrue(page.bodyText().contains("No schedules in this database yet."), page.bodyText());
            ConsoleResponse api = console.handle(get("/api/schedules"));
            assertEquals("{\"schedules\":[]}", api.bodyText());
            for (String action : List.of("pause", "resume", "trigger")) {
                ConsoleResponse post = console.handle(ConsoleRequest.builder("POST", "/api/schedules/nightly/" + action)
                        .header("Authorization", AUTH).remoteAddress("127.0.0.1").build());
                assertEquals(404, post.status(), post::bodyText);
            }
            assertEquals(List.of(), tables(ds), "no table created");
            assertFalse(schedulerRunning(), "no scheduler started");
        } finally {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("SHUTDOWN");
            }
        }
    }

    @Test
    void existing_schedules_starts_no_scheduler_and_start_scheduler_still_does_afterwards() {
        assertFalse(schedulerRunning());
        Schedules seen = f.rq.existingSchedules().orElseThrow(); // the fixture's instance has its scheduler on
        assertEquals(List.of("nightly-report", "sweep"), seen.list().stream().map(ScheduleInfo::name).toList());
        assertFalse(schedulerRunning(), "existingSchedules() starts no scheduler");
        f.rq.schedules();
        assertFalse(schedulerRunning(), "schedules() starts none either");
        f.rq.schedules().startScheduler();
        assertTrue(schedulerRunning(), "startScheduler() does");
    }

    private static ConsoleRequest get(String path) {
        return ConsoleRequest.builder("GET", path).header("Authorization", AUTH).remoteAddress("127.0.0.1").build();
    }

    private static List<String> tables(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES"
                     + " WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            List<String> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }
}
