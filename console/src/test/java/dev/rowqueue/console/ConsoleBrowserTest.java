package dev.rowqueue.console;

import dev.rowqueue.Enqueue;

import com.sun.net.httpserver.HttpServer;
import dev.rowqueue.Job;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console in a real browser: headless Chromium through chromium-driver. NOT RUN (skipped with the reason) where
 * Chromium is not installed. Screenshots go to {@code target/screenshots/}.
 *
 * <p>To add a scenario: open a {@link #console} (optionally configured), {@link #signIn} and drive {@link #browser}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {
    private Browser browser;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    void startBrowser() {
        browser = Browser.start();
    }

    @AfterAll
    void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @AfterEach
    void closeConsoles() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        opened.clear();
        if (browser != null) {
            browser.driver.manage().deleteAllCookies();
        }
    }

    private ConsoleFixture console(UnaryOperator<Console.Builder> configure) {
        ConsoleFixture f = new ConsoleFixture(configure);
        opened.add(f);
        return f;
    }

    /** Opens {@code path} on the console, signs in on the form it leads to, and checks it comes back there. */
    private void signIn(ConsoleFixture f, String path) {
        browser.open(f.uri(path));
        assertTrue(browser.location().startsWith("/sign-in?next="), browser.location());
        browser.signInHere(ConsoleFixture.TOKEN);
        browser.awaitLocation(path);
    }

    private List<Long> deadIds(ConsoleFixture f) {
        return f.mail.deadLetters(100).stream().map(Job::id).toList();
    }

    @Test
    void an_operator_sees_every_queue_and_a_work_queue_in_detail() {
        ConsoleFixture f = console(b -> b);
        dev.rowqueue.WorkQueue outgoing = f.rq.workQueue("outgoing_mail", dev.rowqueue.WorkQueueOptions.defaults()
                .withMaxAttempts(1));
        ConsoleFixture.dead(outgoing, "{\"to\":\"ann@example.com\",\"template\":\"welcome\"}",
                "SMTPException: 550 5.1.1 <ann@example.com>: mailbox unavailable");
        ConsoleFixture.dead(outgoing, "{\"to\":\"bo@example.org\",\"template\":\"invoice\",\"invoice\":7731}",
                "java.net.SocketTimeoutException: connect timed out after 10000 ms\n\tat smtp.Client.connect(Client.java:88)"
                        + "\n\tat mail.Sender.send(Sender.java:41)");
        for (int i = 0; i < 42; i++) {
            outgoing.enqueue("{\"to\":\"user" + i + "@example.com\",\"template\":\"digest\"}");
        }
        outgoing.claim(3);
        for (int i = 0; i < 7; i++) {
            outgoing.enqueue("{\"template\":\"reminder\"}", dev.rowqueue.Enqueue.defaults().withDelay(java.time.Duration.ofHours(1)));
        }
        dev.rowqueue.WorkQueue webhooks = f.rq.workQueue("webhooks");
        webhooks.enqueueAll(java.util.Collections.nCopies(1205, "{\"event\":\"order.paid\"}"),
                dev.rowqueue.Enqueue.defaults());
        f.rq.workQueue("invoices").create();
        f.rq.ring("recent_views", 10).pushAll("article-42", List.of("alice", "bob", "carol"));
        f.rq.counters("order_ids").allocate("orders", 1000);
        signIn(f, "/");
        List<String> names = browser.driver.findElements(By.cssSelector("table.grid tbody td:first-child a")).stream()
                .map(WebElement::getText).toList();
        assertEquals(List.of("booksales", "fruit", "invoices", "mail", "order_ids", "outgoing_mail", "recent_views",
                "webhooks"), names);
        browser.screenshot("docs-overview");
        browser.driver.findElement(By.linkText("outgoing_mail")).click();
        browser.awaitLocation("/queues/outgoing_mail");
        assertEquals(List.of("39", "7", "3", "2", "51"), browser.driver.findElements(By.cssSelector(".card .value"))
                .stream().map(WebElement::getText).toList());
        browser.screenshot("docs-work-queue");
    }

    @Test
    void every_page_without_a_credential_leads_to_sign_in() {
        ConsoleFixture f = console(b -> b);
        long id = f.dead.get(0);
        for (String page : List.of("/", "/queues/mail", "/queues/fruit?group=basket", "/queues/booksales",
                "/queues/mail/dead/purge", "/queues/mail?done=revived&id=" + id, "/no-such-page")) {
            browser.open(f.uri(page));
            assertTrue(browser.location().startsWith("/sign-in?next="), page + " led to " + browser.location());
            assertEquals("Sign in", browser.driver.findElement(By.tagName("h1")).getText(), page);
            assertTrue(browser.driver.findElements(By.cssSelector("table")).isEmpty(), "no data on " + page);
        }
        browser.screenshot("sign-in");
        browser.signInHere(ConsoleFixture.TOKEN);
        browser.awaitLocation("/no-such-page");
        browser.open(f.uri("/queues/booksales"));
        browser.awaitLocation("/queues/booksales");
        browser.screenshot("counters");
    }

    @Test
    void an_operator_revives_a_dead_job() {
        ConsoleFixture f = console(b -> b);
        long id = f.dead.get(0);
        signIn(f, "/");
        browser.screenshot("overview");
        browser.driver.findElement(By.linkText("mail")).click();
        browser.awaitLocation("/queues/mail");
        assertEquals("3", browser.driver.findElement(By.cssSelector(".card.dead .value")).getText());
        browser.screenshot("work-queue");

        browser.driver.findElement(By.cssSelector("#job-" + id + " button")).click();
        String ready = "Job " + id + " is ready again.";
        assertEquals(ready, browser.awaitText(By.cssSelector(".notice"), ready));
        browser.awaitLocation("/queues/mail");
        assertEquals("2", browser.driver.findElement(By.cssSelector(".card.dead .value")).getText());
        assertTrue(browser.driver.findElements(By.id("job-" + id)).isEmpty());
        assertEquals(f.dead.subList(1, 3), deadIds(f), "revived in the database");
        browser.screenshot("revived");
    }

    @Test
    void an_operator_finds_a_scheduled_job_and_cancels_it() {
        ConsoleFixture f = console(b -> b);
        long later = f.mail.jobs(dev.rowqueue.JobQuery.all().withState(dev.rowqueue.JobState.SCHEDULED)).jobs().get(0).id();
        signIn(f, "/queues/mail");
        browser.driver.findElement(By.linkText("scheduled")).click();
        browser.awaitLocation("/queues/mail/jobs?state=scheduled");
        browser.driver.findElement(By.cssSelector("#job-" + later + " a")).click();
        browser.awaitLocation("/queues/mail/jobs/" + later);
        assertEquals("later", browser.driver.findElement(By.cssSelector("pre.payload")).getText());
        browser.screenshot("docs-job");
        browser.driver.findElement(By.linkText("Cancel job " + later + "…")).click();
        browser.awaitLocation("/queues/mail/jobs/" + later + "/cancel");
        assertTrue(f.mail.job(later).isPresent(), "the confirmation page cancels nothing");
        browser.driver.findElement(By.linkText("Keep it")).click();
        browser.awaitLocation("/queues/mail/jobs/" + later);
        assertTrue(f.mail.job(later).isPresent(), "kept");
        browser.driver.findElement(By.linkText("Cancel job " + later + "…")).click();
        browser.awaitLocation("/queues/mail/jobs/" + later + "/cancel");
        browser.driver.findElement(By.cssSelector(".actions button.danger")).click();
        String cancelled = "Job " + later + " is cancelled: no consumer will get it.";
        assertEquals(cancelled, browser.awaitText(By.cssSelector(".notice"), cancelled));
        assertEquals("0", browser.driver.findElement(By.cssSelector(".card.scheduled .value")).getText());
        assertTrue(f.mail.job(later).isEmpty(), "cancelled in the database");

        // the search finds a job by id; a leased job shows no cancel button
        Job leased = f.mail.claim(1).get(0);
        browser.driver.findElement(By.id("q")).sendKeys(String.valueOf(leased.id()));
        browser.driver.findElement(By.cssSelector("form.lookup button")).click();
        browser.awaitLocation("/queues/mail/jobs/" + leased.id());
        assertEquals("leased", browser.driver.findElement(By.cssSelector("dd.state")).getText());
        assertTrue(browser.driver.findElements(By.cssSelector(".actions button")).isEmpty(), "no cancel button");
    }

    @Test
    void an_operator_pages_through_ten_thousand_jobs_without_a_gap_or_a_repeat() {
        ConsoleFixture f = console(b -> b);
        dev.rowqueue.WorkQueue bulk = f.rq.workQueue("bulk");
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            List<String> payloads = new ArrayList<>();
            for (int j = 0; j < 1000; j++) {
                payloads.add("{\"n\":" + (i * 1000 + j) + "}");
            }
            ids.addAll(bulk.enqueueAll(payloads, dev.rowqueue.Enqueue.defaults()));
        }
        signIn(f, "/queues/bulk/jobs?state=ready");
        List<Long> seen = new ArrayList<>();
        int pages = 0;
        while (true) {
            List<WebElement> rows = browser.driver.findElements(By.cssSelector("table.jobs tbody tr"));
            assertEquals(Routes.JOBS_PER_PAGE, rows.size(), "page " + (pages + 1));
            for (WebElement row : rows) {
                seen.add(Long.parseLong(row.getAttribute("id").substring("job-".length())));
            }
            pages++;
            if (pages == 1) {
                browser.screenshot("docs-jobs");
            }
            List<WebElement> next = browser.driver.findElements(By.cssSelector("a[rel=next]"));
            if (next.isEmpty()) {
                break;
            }
            next.get(0).click();
        }
        assertEquals(20, pages);
        assertEquals(ids, seen, "10,000 jobs in id order, each once");
        assertTrue(browser.location().startsWith("/queues/bulk/jobs?state=ready&order=oldest&after="),
                browser.location());
    }

    @Test
    void an_operator_purges_dead_letters_after_a_confirmation() {
        ConsoleFixture f = console(b -> b);
        signIn(f, "/queues/mail");
        browser.driver.findElement(By.linkText("Purge dead letters…")).click();
        browser.awaitLocation("/queues/mail/dead/purge");
        assertEquals(3, deadIds(f).size(), "nothing deleted before the confirmation");
        browser.screenshot("purge-confirmation");
        browser.driver.findElement(By.cssSelector(".confirm button.danger")).click();
        assertEquals("3 dead letters were deleted.",
                browser.awaitText(By.cssSelector(".notice"), "3 dead letters were deleted."));
        assertEquals(List.of(), deadIds(f));
    }

    @Test
    void a_malicious_payload_is_rendered_as_text() {
        ConsoleFixture f = console(b -> b);
        signIn(f, "/queues/mail");
        assertThrows(NoAlertPresentException.class, () -> browser.driver.switchTo().alert());
        WebElement payload = browser.driver.findElement(By.cssSelector("#job-" + f.dead.get(1) + " td.payload code"));
        assertEquals(ConsoleFixture.SCRIPT, payload.getText());
        WebElement error = browser.driver.findElement(By.cssSelector("#job-" + f.dead.get(1) + " td.error code"));
        assertEquals("<img src=x onerror=alert(2)>", error.getText());
        assertEquals(1, browser.driver.findElements(By.tagName("script")).size(), "only console.js");
        assertTrue(browser.driver.findElements(By.tagName("img")).isEmpty());

        browser.open(f.uri("/queues/fruit?group=%22%3E%3Cscript%3Ealert(3)%3C%2Fscript%3E"));
        assertThrows(NoAlertPresentException.class, () -> browser.driver.switchTo().alert());
        browser.screenshot("ring");
        assertEquals("\"><script>alert(3)</script>",
                browser.driver.findElement(By.id("group")).getAttribute("value"));
        assertEquals(1, browser.driver.findElements(By.tagName("script")).size());

        // the JSON API's output, parsed by the browser's own JSON parser, gives the payload back exactly
        Object payloads = ((JavascriptExecutor) browser.driver).executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                        + "fetch('/api/queues/mail').then(function (r) { return r.json(); })"
                        + ".then(function (j) { done(j.dead.map(function (d) { return d.payload; })); })"
                        + ".catch(function (e) { done(String(e)); });");
        assertTrue(payloads instanceof List<?> l && l.contains(ConsoleFixture.SCRIPT), String.valueOf(payloads));
    }

    @Test
    void a_forged_cross_site_post_is_refused() throws IOException {
        ConsoleFixture f = console(b -> b);
        long id = f.dead.get(0);
        signIn(f, "/queues/mail");
        String target = f.uri("/queues/mail/dead/" + id + "/revive").toString();
        HttpServer evil = attacker(target);
        try {
            // another port of the same host: the same site, so the browser sends the session cookie along
            browser.open(URI.create("http://127.0.0.1:" + evil.getAddress().getPort() + "/"));
            browser.driver.findElement(By.tagName("button")).click();
            assertEquals("Refused", browser.awaitText(By.tagName("h1"), "Refused"));
            browser.screenshot("forged-post-refused");
            // another site altogether: the SameSite=Strict cookie stays home
            browser.open(URI.create("http://localhost:" + evil.getAddress().getPort() + "/"));
            browser.driver.findElement(By.tagName("button")).click();
            assertEquals("Sign in first", browser.awaitText(By.tagName("h1"), "Sign in first"));
        } finally {
            evil.stop(0);
        }
        assertEquals(f.dead, deadIds(f), "nothing revived");
    }

    /** A page of another origin with a form that posts to the console, with a made-up CSRF token. */
    private static HttpServer attacker(String target) throws IOException {
        HttpServer evil = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        evil.createContext("/", exchange -> {
            byte[] page = ("<!doctype html><title>Win a prize</title><form method=post action=\"" + target + "\">"
                    + "<input type=hidden name=csrf value=guessed><button>Claim your prize</button></form>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        });
        evil.start();
        return evil;
    }

    @Test
    void a_link_from_another_site_opens_the_console_of_a_signed_in_operator() throws IOException {
        ConsoleFixture f = console(b -> b);
        signIn(f, "/");
        HttpServer elsewhere = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String link = f.uri("/queues/mail").toString();
        elsewhere.createContext("/", exchange -> {
            byte[] page = ("<!doctype html><title>Chat</title><a id=link href=\"" + link + "\">the mail queue</a>")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        });
        elsewhere.start();
        try {
            browser.open(URI.create("http://localhost:" + elsewhere.getAddress().getPort() + "/"));
            browser.driver.findElement(By.id("link")).click();
            new org.openqa.selenium.support.ui.WebDriverWait(browser.driver, java.time.Duration.ofSeconds(10))
                    .until(d -> browser.location().equals("/queues/mail") && !d.findElements(By.tagName("h1"))
                            .isEmpty() && d.findElement(By.tagName("h1")).getText().startsWith("mail"));
        } finally {
            elsewhere.stop(0);
        }
    }

    @Test
    void an_operator_pauses_resumes_and_triggers_a_schedule_whose_template_shows_as_text() {
        ConsoleFixture f = console(b -> b);
        try (dev.rowqueue.RowQueues admin = dev.rowqueue.RowQueues.builder(f.dataSource).scheduler(false).build()) {
            admin.schedules().define("nightly-report", "0 3 * * *", dev.rowqueue.ScheduleOptions.forQueue("mail")
                    .withZone("Europe/Berlin").withPayload(ConsoleFixture.SCRIPT));
        }
        signIn(f, "/");
        browser.driver.findElement(By.linkText("Schedules")).click();
        browser.awaitLocation("/schedules");
        assertThrows(NoAlertPresentException.class, () -> browser.driver.switchTo().alert());
        assertEquals(ConsoleFixture.SCRIPT, browser.driver.findElement(By.cssSelector("td.payload code")).getText());
        assertEquals(1, browser.driver.findElements(By.tagName("script")).size(), "only console.js");
        browser.screenshot("schedules");

        browser.driver.findElement(By.xpath("//button[text()='Pause']")).click();
        String paused = browser.awaitText(By.cssSelector(".notice"),
                t -> t.startsWith("Schedule nightly-report is paused"));
        assertTrue(paused.startsWith("Schedule nightly-report is paused"), paused);
        assertTrue(f.rq.existingSchedules().orElseThrow().get("nightly-report").orElseThrow().paused());
        browser.driver.findElement(By.xpath("//button[text()='Resume']")).click();
        assertEquals("Schedule nightly-report is resumed.",
                browser.awaitText(By.cssSelector(".notice"), "Schedule nightly-report is resumed."));
        long before = f.mail.stats().total();
        browser.driver.findElement(By.xpath("//button[text()='Trigger now']")).click();
        String now = "Schedule nightly-report enqueued job \\d+ into work queue mail now; .*";
        String triggered = browser.awaitText(By.cssSelector(".notice"), t -> t.matches(now));
        assertTrue(triggered.matches(now), triggered);
        assertEquals(before + 1, f.mail.stats().total());
        browser.awaitLocation("/schedules");
    }

    /** Issue 37: the zero offset is named UTC (not Z), and a paused schedule shows no next fire times. */
    @Test
    void a_paused_schedule_shows_no_fire_times_and_utc_is_named() {
        ConsoleFixture f = console(b -> b);
        try (dev.rowqueue.RowQueues admin = dev.rowqueue.RowQueues.builder(f.dataSource).scheduler(false).build()) {
            admin.schedules().define("utc-report", "0 4 * * *", dev.rowqueue.ScheduleOptions.forQueue("mail"));
            admin.schedules().define("held", "0 5 * * *", dev.rowqueue.ScheduleOptions.forQueue("mail"));
            admin.schedules().pause("held");
        }
        signIn(f, "/schedules");
        browser.screenshot("schedules-paused-utc");
        assertEquals("UTC", cell("utc-report", 3));
        assertTrue(cell("utc-report", 7).matches("(?s)\\d{4}-.*"), "an active schedule lists its fire times: "
                + cell("utc-report", 7));
        assertEquals("none while paused", cell("held", 7));
        assertEquals(0, browser.driver.findElements(By.xpath("//tr[td[1][text()='held']]/td[7]//time")).size());
    }

    /** Issue 37: the list of dead jobs (jobs by state) shows each one's last error, as text. */
    @Test
    void the_dead_jobs_list_shows_their_last_errors() {
        ConsoleFixture f = console(b -> b);
        signIn(f, "/queues/mail/jobs?state=dead");
        browser.screenshot("dead-jobs-errors");
        assertEquals("SMTP 550 mailbox unavailable",
                browser.driver.findElement(By.cssSelector("#job-" + f.dead.get(0) + " td.error")).getText());
        assertEquals("<img src=x onerror=alert(2)>",
                browser.driver.findElement(By.cssSelector("#job-" + f.dead.get(1) + " td.error")).getText());
        assertThrows(NoAlertPresentException.class, () -> browser.driver.switchTo().alert());
    }

    /** Issue 37: a key such as customer-1 stays on one line, also in a narrow window (no "customer-" / "1"). */
    @Test
    void keys_do_not_break_at_their_hyphens_in_a_narrow_window() {
        ConsoleFixture f = console(b -> b);
        for (int i = 1; i <= 3; i++) {
            f.mail.enqueue("{\"order\":" + i + ",\"note\":\"a payload long enough to want the room of the key column\"}",
                    Enqueue.defaults().withKey("customer-" + i));
        }
        org.openqa.selenium.Dimension before = browser.driver.manage().window().getSize();
        try {
            browser.driver.manage().window().setSize(new org.openqa.selenium.Dimension(520, 860));
            signIn(f, "/queues/mail/jobs?state=ready");
            browser.screenshot("narrow-keys");
            List<WebElement> keys = browser.driver.findElements(By.xpath("//td[starts-with(text(), 'customer-')]"));
            assertEquals(3, keys.size());
            for (WebElement key : keys) {
                Object lines = ((JavascriptExecutor) browser.driver).executeScript(
                        "var r = document.createRange(); r.selectNodeContents(arguments[0]);"
                                + " return r.getClientRects().length;", key);
                assertEquals(1L, ((Number) lines).longValue(), key.getText() + " is on one line");
            }
        } finally {
            browser.driver.manage().window().setSize(before);
        }
    }

    /**
     * Issue 37: a work queue's last hour as charts with labelled axes and numbers: enqueued, finished, failed and the
     * wait from enqueue to start, with a table of the same figures.
     */
    @Test
    void a_work_queue_shows_its_last_hour_as_charts_with_axes_and_a_table_of_figures() throws Exception {
        ConsoleFixture f = console(b -> b);
        dev.rowqueue.WorkQueue q = f.rq.workQueue("charts", dev.rowqueue.WorkQueueOptions.defaults()
                .withMaxAttempts(5));
        q.enqueueAll(java.util.Collections.nCopies(5, "job"), Enqueue.defaults());
        Thread.sleep(300); // every wait from enqueue to start is at least this long
        List<Job> claimed = q.claim(3);
        assertTrue(q.ack(claimed.get(0)));
        assertTrue(q.ack(claimed.get(1)));
        assertTrue(q.nack(claimed.get(2), java.time.Duration.ofHours(1), "boom"));
        signIn(f, "/queues/charts");
        browser.screenshot("queue-last-hour");
        for (String[] chart : new String[][] {{"enqueued", "5"}, {"finished", "2"}, {"failed", "1"}}) {
            WebElement fig = browser.driver.findElement(By.id("chart-" + chart[0]));
            assertEquals(chart[1], fig.getAttribute("data-total"), chart[0]);
            assertTrue(fig.findElement(By.tagName("figcaption")).getText().contains(chart[1] + " in all"),
                    fig.getText());
            long bars = fig.findElements(By.tagName("rect")).stream()
                    .mapToLong(r -> Long.parseLong(r.getAttribute("data-value"))).sum();
            assertEquals(Long.parseLong(chart[1]), bars, chart[0] + ": the bars add up to the total");
            List<String> yTicks = fig.findElements(By.cssSelector("text.y-tick")).stream().map(WebElement::getText)
                    .toList();
            assertEquals("0", yTicks.get(0), chart[0] + " y axis starts at 0: " + yTicks);
            assertTrue(Long.parseLong(yTicks.get(yTicks.size() - 1)) >= Long.parseLong(chart[1]), "" + yTicks);
            List<String> xTicks = fig.findElements(By.cssSelector("text.x-tick")).stream().map(WebElement::getText)
                    .toList();
            assertEquals(5, xTicks.size(), "a label each quarter hour and the zone: " + xTicks);
            assertTrue(xTicks.get(0).matches("\\d\\d:\\d\\d") && xTicks.get(4).equals("UTC"), "" + xTicks);
        }
        WebElement wait = browser.driver.findElement(By.id("chart-wait"));
        assertTrue(Long.parseLong(wait.getAttribute("data-max")) >= 300, wait.getAttribute("data-max"));
        assertTrue(wait.findElements(By.cssSelector("text.y-tick")).get(2).getText().matches("[\\d.]+ (ms|s)"));
        // the table: per minute, the same figures (the claims may straddle two minutes)
        long[] sums = new long[4];
        List<WebElement> rows = browser.driver.findElements(By.cssSelector("table.activity-figures tbody tr"));
        assertTrue(!rows.isEmpty() && rows.size() <= 2, rows.size() + " rows");
        boolean waitShown = false;
        for (WebElement row : rows) {
            List<WebElement> cells = row.findElements(By.tagName("td"));
            assertTrue(cells.get(0).getText().matches("\\d\\d:\\d\\d"), cells.get(0).getText());
            for (int i = 0; i < 4; i++) {
                sums[i] += Long.parseLong(cells.get(i + 1).getText());
            }
            waitShown |= !cells.get(5).getText().equals("—");
        }
        assertEquals(List.of(5L, 2L, 1L, 3L), java.util.Arrays.stream(sums).boxed().toList(),
                "enqueued, finished, failed, started");
        assertTrue(waitShown, "a mean wait is shown for the minute of the claims");
    }

    /**
     * Issue 37: a leased job names its holder as a person can act on it (name, host, process id, what it runs), found
     * from the node id its lease token carries; not a raw token.
     */
    @Test
    void a_leased_job_names_the_worker_process_that_holds_it() throws Exception {
        ConsoleFixture f = console(b -> b);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (dev.rowqueue.RowQueues billing = dev.rowqueue.RowQueues.builder(f.dataSource).nodeName("billing-worker")
                .scheduler(false).build()) {
            dev.rowqueue.WorkQueue q = billing.workQueue("invoices");
            long id = q.enqueue("invoice 7731");
            try (dev.rowqueue.Worker w = q.worker(job -> {
                running.countDown();
                release.await(60, java.util.concurrent.TimeUnit.SECONDS);
            }, dev.rowqueue.WorkerOptions.defaults().withThreads(3)).start()) {
                assertTrue(running.await(30, java.util.concurrent.TimeUnit.SECONDS));
                long end = System.nanoTime() + 30_000_000_000L;
                while (f.rq.nodes().stream().noneMatch(n -> n.id() == billing.nodeId()) && System.nanoTime() < end) {
                    Thread.sleep(50); // the node registers on its own thread
                }
                signIn(f, "/queues/invoices/jobs/" + id);
                browser.screenshot("lease-holder");
                String who = browser.driver.findElement(By.cssSelector("dd.holder .who")).getText();
                assertEquals("billing-worker on " + java.net.InetAddress.getLocalHost().getHostName() + ", process "
                        + ProcessHandle.current().pid(), who);
                String more = browser.driver.findElement(By.cssSelector("dd.holder p")).getText();
                assertTrue(more.startsWith("node " + billing.nodeId() + " · workers: invoices (3 threads) · last seen "),
                        more);
                release.countDown();
            }
        }
    }

    /**
     * Issue 37: schedules show when each last fired, and whether any scheduler process is alive (its node's
     * heartbeat): a warning while none is, the process once one runs.
     */
    @Test
    void schedules_show_their_last_fire_and_whether_a_scheduler_is_alive() throws Exception {
        ConsoleFixture f = console(b -> b.refresh(java.time.Duration.ofSeconds(1)));
        try (dev.rowqueue.RowQueues admin = dev.rowqueue.RowQueues.builder(f.dataSource).scheduler(false).build()) {
            admin.schedules().define("every-second", "rate:PT1S", dev.rowqueue.ScheduleOptions.forQueue("mail"));
            admin.schedules().define("nightly", "0 3 * * *", dev.rowqueue.ScheduleOptions.forQueue("mail"));
        }
        signIn(f, "/schedules");
        assertTrue(browser.driver.findElement(By.cssSelector("p.schedulers")).getText()
                .startsWith("No scheduler seen in the last 30 s"));
        assertEquals("never", cell("every-second", 8));
        try (dev.rowqueue.RowQueues cron = dev.rowqueue.RowQueues.builder(f.dataSource).nodeName("cron-node")
                .build()) {
            cron.schedules().startScheduler(); // starts its scheduler: it fires every-second, and its node beats
            long end = System.nanoTime() + 30_000_000_000L;
            while ((f.rq.existingSchedules().orElseThrow().lastFires().get("every-second") == null
                    || f.rq.nodes().stream().noneMatch(n -> n.scheduler() && n.alive())) && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            Thread.sleep(1_100); // the console's reads are reused for its refresh interval
            browser.driver.navigate().refresh();
            browser.screenshot("schedules-last-fire-scheduler");
            assertEquals("1 scheduler alive: cron-node on " + java.net.InetAddress.getLocalHost().getHostName()
                    + ", process " + ProcessHandle.current().pid(), browser.driver.findElement(
                            By.cssSelector("p.schedulers")).getText().replaceAll(" \\(last seen .*\\)$", ""));
            assertTrue(cell("every-second", 8).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC"),
                    cell("every-second", 8));
            assertEquals("never", cell("nightly", 8));
        }
    }

    private String cell(String schedule, int column) {
        return browser.driver.findElement(By.xpath("//tr[td[1][text()='" + schedule + "']]/td[" + column + "]"))
                .getText().strip();
    }

    @Test
    void read_only_mode_shows_no_buttons_and_refuses_posts() {
        ConsoleFixture f = console(b -> b.readOnly(true));
        long id = f.dead.get(0);
        signIn(f, "/queues/mail");
        browser.screenshot("read-only");
        List<String> buttons = browser.driver.findElements(By.cssSelector("form[method=post] button")).stream()
                .map(WebElement::getText).toList();
        assertEquals(List.of("Sign out"), buttons, "no button that changes anything (the search only reads)");
        assertTrue(browser.driver.findElements(By.linkText("Purge dead letters…")).isEmpty());
        assertEquals("read-only", browser.driver.findElement(By.cssSelector(".badge.ro")).getText());

        Object status = ((JavascriptExecutor) browser.driver).executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                        + "var csrf = document.querySelector('input[name=csrf]').value;"
                        + "fetch('/queues/mail/dead/" + id + "/revive', {method: 'POST', headers:"
                        + " {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'csrf=' + csrf})"
                        + ".then(function (r) { done(r.status); }).catch(function (e) { done(String(e)); });");
        assertEquals(404L, status);
        browser.open(f.uri("/queues/mail/dead/purge"));
        assertEquals("Not found", browser.driver.findElement(By.tagName("h1")).getText());
        assertEquals(f.dead, deadIds(f), "nothing revived");
    }
}
