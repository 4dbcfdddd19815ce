package dev.rowqueue.console;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.JobQuery;
import dev.rowqueue.JobState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.rowqueue.console.Http.form;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console over plain HTTP, on the JDK's server and H2: credentials, CSRF, origins, escaping, the audit log. */
class ConsoleHttpTest {
    private ConsoleFixture f;
    private Http http;

    @BeforeEach
    void start() {
        f = new ConsoleFixture();
        http = f.http();
    }

    @AfterEach
    void stop() throws Exception {
        f.close();
    }

    private List<Long> deadIds() {
        return f.mail.deadLetters(100).stream().map(Job::id).toList();
    }

    @Test
    void without_a_credential_pages_redirect_to_sign_in_and_the_api_answers_401() {
        for (String page : List.of("/", "/queues/mail", "/queues/fruit?group=basket", "/queues/mail/dead/purge",
                "/no/such/page")) {
            HttpResponse<String> r = http.get(page);
            assertEquals(303, r.statusCode(), page);
            String location = r.headers().firstValue("Location").orElseThrow();
            assertTrue(location.startsWith("/sign-in?next="), location);
            assertFalse(r.body().contains("mail"), "no data before signing in: " + r.body());
        }
        HttpResponse<String> api = http.get("/api/queues");
        assertEquals(401, api.statusCode());
        assertEquals("Bearer realm=\"rowqueue console\"", api.headers().firstValue("WWW-Authenticate").orElseThrow());
        assertFalse(api.body().contains("mail"), api.body());
        HttpResponse<String> post = http.post("/queues/mail/dead/" + f.dead.get(0) + "/revive", Map.of());
        assertEquals(401, post.statusCode());
        assertEquals(deadIds(), f.dead, "nothing revived");

        HttpResponse<String> signIn = http.get(http.get("/queues/mail").headers().firstValue("Location").orElseThrow());
        assertEquals(200, signIn.statusCode());
        assertTrue(signIn.body().contains("name=\"next\" value=\"/queues/mail\""), signIn.body());
        assertTrue(signIn.body().contains("type=\"password\""), signIn.body());
        assertEquals(200, http.get("/assets/console.css").statusCode(), "the stylesheet needs no credential");
    }

    @Test
    void a_wrong_bearer_token_is_refused_and_the_right_one_gets_the_queue_by_name() {
        assertEquals(401, http.get("/queues/mail", "Authorization", "Bearer wrong-token-0123456789").statusCode());
        assertEquals(401, http.get("/api/queues", "Authorization", "Bearer " + ConsoleFixture.TOKEN + "x")
                .statusCode());
        assertEquals(303, http.get("/?token=" + ConsoleFixture.TOKEN).statusCode(), "a token in the URL is no"
                + " credential: off to sign in");

        HttpResponse<String> page = http.get("/queues/mail", "Authorization", "Bearer " + ConsoleFixture.TOKEN);
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<h1>mail <span class=\"kind kind-work\">work queue</span></h1>"),
                page.body());
        HttpResponse<String> api = http.get("/api/queues", "Authorization", "Bearer " + ConsoleFixture.TOKEN);
        assertEquals(200, api.statusCode());
        assertEquals("application/json; charset=utf-8", api.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(api.body().contains("{\"name\":\"mail\",\"kind\":\"work\",\"createdAt\":"), api.body());
        assertTrue(api.body().contains("\"stats\":{\"ready\":1,\"scheduled\":1,\"leased\":0,\"dead\":3,\"total\":5}"),
                api.body());
    }

    @Test
    void a_rate_limited_queue_shows_its_window_and_others_show_none() {
        dev.rowqueue.WorkQueue limited = f.rq.workQueue("partner_api", dev.rowqueue.WorkQueueOptions.defaults()
                .withRateLimit(5, java.time.Duration.ofMinutes(1)));
        limited.enqueueAll(List.of("a", "b", "c"), dev.rowqueue.Enqueue.defaults());
        assertEquals(2, limited.claim(2).size());
        String auth = "Bearer " + ConsoleFixture.TOKEN;

        String page = http.get("/queues/partner_api", "Authorization", auth).body();
        assertTrue(page.contains("<h2>Rate limit</h2>"), page);
        assertTrue(page.contains("2 of 5 started in the last 1 min; 3 more may start now. 2 started under the limit"
                + " in all"), page);
        String json = http.get("/api/queues/partner_api", "Authorization", auth).body();
        assertTrue(json.contains("\"rateWindow\":{\"limit\":5,\"windowMillis\":60000,\"started\":2,"
                + "\"remaining\":3,\"total\":2,\"lastStart\":"), json);

        assertFalse(http.get("/queues/mail", "Authorization", auth).body().contains("Rate limit"),
                "a queue without a rate limit shows none");
        assertFalse(http.get("/api/queues/mail", "Authorization", auth).body().contains("rateWindow"));
    }

    @Test
    void signing_in_sets_an_httponly_samesite_strict_session_cookie_that_is_not_the_token() {
        HttpResponse<String> wrong = http.post("/sign-in", form("token", "not-the-token-at-all", "next", "/"));
        assertEquals(401, wrong.statusCode());
        assertTrue(wrong.headers().firstValue("Set-Cookie").isEmpty());

        String set = http.signIn(ConsoleFixture.TOKEN);
        assertTrue(set.matches("rowqueue_console=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict"), set);
        assertFalse(set.contains(ConsoleFixture.TOKEN));
        HttpResponse<String> page = http.get("/queues/mail", "Cookie", http.cookie);
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("mail"));

        String csrf = http.csrf("/queues/mail");
        assertEquals(303, http.post("/sign-out", form("csrf", csrf), "Cookie", http.cookie).statusCode());
        assertEquals(303, http.get("/queues/mail", "Cookie", http.cookie).statusCode(), "signed out");
    }

    @Test
    void after_twenty_wrong_tokens_in_a_minute_an_address_is_refused_without_a_check() {
        for (int i = 0; i < TokenAuth.MAX_FAILURES_PER_MINUTE; i++) {
            assertEquals(401, http.post("/sign-in", form("token", "guess-number-" + i + "-0123456789")).statusCode());
        }
        HttpResponse<String> limited = http.post("/sign-in", form("token", ConsoleFixture.TOKEN));
        assertEquals(429, limited.statusCode(), "even the right token, from that address, for that minute");
        assertEquals("60", limited.headers().firstValue("Retry-After").orElseThrow());
        assertEquals(200, http.get("/api/queues", "Authorization", "Bearer " + ConsoleFixture.TOKEN).statusCode(),
                "scripts with the token are not locked out");
    }

    @Test
    void sign_in_goes_back_only_to_pages_of_the_console() {
        for (String next : List.of("//evil.example/", "https://evil.example/", "/\\evil.example", "/sign-in")) {
            HttpResponse<String> r = http.post("/sign-in", form("token", ConsoleFixture.TOKEN, "next", next));
            assertEquals("/", r.headers().firstValue("Location").orElseThrow(), next);
        }
        HttpResponse<String> r = http.post("/sign-in", form("token", ConsoleFixture.TOKEN, "next", "/queues/mail"));
        assertEquals("/queues/mail", r.headers().firstValue("Location").orElseThrow());
    }

    @Test
    void a_cookie_authenticated_post_needs_its_csrf_token_and_its_own_origin() {
        http.signIn(ConsoleFixture.TOKEN);
        String csrf = http.csrf("/queues/mail");
        long id = f.dead.get(0);
        String revive = "/queues/mail/dead/" + id + "/revive";
        String origin = "http://127.0.0.1:" + f.server.port();

        assertEquals(403, http.post(revive, Map.of(), "Cookie", http.cookie).statusCode(), "no token");
        assertEquals(403, http.post(revive, form("csrf", "forged"), "Cookie", http.cookie).statusCode(), "wrong token");
        assertEquals(403, http.post(revive, form("csrf", csrf), "Cookie", http.cookie, "Origin",
                "http://localhost:" + f.server.port()).statusCode(), "another origin");
        assertEquals(403, http.post(revive, form("csrf", csrf), "Cookie", http.cookie, "Origin",
                "http://127.0.0.1:1").statusCode(), "another port");
        assertEquals(403, http.post(revive, form("csrf", csrf), "Cookie", http.cookie, "Origin", "null").statusCode());
        assertEquals(403, http.post(revive, form("csrf", csrf), "Cookie", http.cookie, "Origin", origin,
                "Sec-Fetch-Site", "same-site").statusCode(), "a sibling site");
        assertEquals(f.dead, deadIds(), "nothing revived by a refused request");

        HttpResponse<String> ok = http.post(revive, form("csrf", csrf), "Cookie", http.cookie, "Origin", origin,
                "Sec-Fetch-Site", "same-origin");
        assertEquals(303, ok.statusCode(), ok.body());
        assertEquals("/queues/mail?done=revived&id=" + id, ok.headers().firstValue("Location").orElseThrow());
        assertEquals(f.dead.subList(1, 3), deadIds());
        HttpResponse<String> after = http.get(ok.headers().firstValue("Location").orElseThrow(), "Cookie", http.cookie);
        assertTrue(after.body().contains("Job " + id + " is ready again."), after.body());

        // the CSRF token may come as a header too (scripts in the browser)
        HttpResponse<String> header = http.post("/api/queues/mail/dead/" + f.dead.get(1) + "/revive", Map.of(),
                "Cookie", http.cookie, "X-CSRF-Token", csrf);
        assertEquals(200, header.statusCode(), header.body());
        assertEquals("{\"revived\":true,\"id\":" + f.dead.get(1) + "}", header.body());
    }

    @Test
    void a_bearer_post_needs_no_csrf_token_but_a_cross_origin_one_is_refused() {
        String auth = "Bearer " + ConsoleFixture.TOKEN;
        HttpResponse<String> r = http.post("/api/queues/mail/dead/revive-all", Map.of(), "Authorization", auth);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("{\"revived\":3}", r.body());
        HttpResponse<String> cross = http.post("/api/queues/mail/dead/revive-all", Map.of(), "Authorization", auth,
                "Origin", "http://evil.example");
        assertEquals(403, cross.statusCode());
        assertTrue(cross.body().startsWith("{\"error\":"), cross.body());
        HttpResponse<String> missing = http.post("/api/queues/mail/dead/999/revive", Map.of(), "Authorization", auth);
        assertEquals(404, missing.statusCode());
    }

    @Test
    void purging_needs_the_confirmation_page_and_names_the_queue() {
        http.signIn(ConsoleFixture.TOKEN);
        HttpResponse<String> confirm = http.get("/queues/mail/dead/purge", "Cookie", http.cookie);
        assertEquals(200, confirm.statusCode());
        assertTrue(confirm.body().contains("This deletes the <strong>3</strong> dead letters of work queue"
                + " <strong>mail</strong>."), confirm.body());
        String csrf = http.csrf("/queues/mail/dead/purge");
        HttpResponse<String> unconfirmed = http.post("/queues/mail/dead/purge", form("csrf", csrf), "Cookie",
                http.cookie);
        assertEquals(400, unconfirmed.statusCode());
        assertEquals(3, deadIds().size());
        HttpResponse<String> done = http.post("/queues/mail/dead/purge", form("csrf", csrf, "confirm", "mail"),
                "Cookie", http.cookie);
        assertEquals(303, done.statusCode());
        assertEquals("/queues/mail?done=purged&count=3", done.headers().firstValue("Location").orElseThrow());
        assertEquals(List.of(), deadIds());
        assertEquals(2, f.mail.stats().total(), "the live jobs stay");
    }

    @Test
    void a_read_only_console_serves_no_change_and_shows_no_button() throws Exception {
        try (ConsoleFixture ro = new ConsoleFixture(b -> b.readOnly(true))) {
            Http h = ro.http();
            h.signIn(ConsoleFixture.TOKEN);
            HttpResponse<String> page = h.get("/queues/mail", "Cookie", h.cookie);
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("read-only"));
            assertFalse(page.body().contains("/revive"), page.body());
            assertFalse(page.body().contains("/dead/purge"), page.body());
            assertEquals(1, page.body().split("method=\"post\"", -1).length - 1, "only the sign-out form");
            String csrf = h.csrf("/queues/mail");
            String auth = "Bearer " + ConsoleFixture.TOKEN;
            long id = ro.dead.get(0);
            assertEquals(404, h.post("/queues/mail/dead/" + id + "/revive", form("csrf", csrf), "Cookie", h.cookie)
                    .statusCode());
            assertEquals(404, h.post("/queues/mail/dead/revive-all", form("csrf", csrf), "Cookie", h.cookie)
                    .statusCode());
            assertEquals(404, h.get("/queues/mail/dead/purge", "Cookie", h.cookie).statusCode());
            assertEquals(404, h.post("/queues/mail/dead/purge", form("csrf", csrf, "confirm", "mail"), "Cookie",
                    h.cookie).statusCode());
            assertEquals(404, h.post("/api/queues/mail/dead/revive-all", Map.of(), "Authorization", auth).statusCode());
            long ready = ro.mail.jobs(JobQuery.all().withState(JobState.READY)).jobs().get(0).id();
            String job = h.get("/queues/mail/jobs/" + ready, "Cookie", h.cookie).body();
            assertFalse(job.contains("/cancel"), job);
            assertEquals(1, job.split("method=\"post\"", -1).length - 1, "only the sign-out form");
            assertEquals(404, h.post("/queues/mail/jobs/" + ready + "/cancel", form("csrf", csrf), "Cookie", h.cookie)
                    .statusCode());
            assertEquals(404, h.post("/api/queues/mail/jobs/" + ready + "/cancel", Map.of(), "Authorization", auth)
                    .statusCode());
            assertTrue(ro.mail.job(ready).isPresent(), "not cancelled");
            HttpResponse<String> post = h.post("/api/queues/mail", Map.of(), "Authorization", auth);
            assertEquals(405, post.statusCode());
            assertEquals(3, ro.mail.deadLetters(10).size(), "every dead letter is still dead");
        }
    }

    @Test
    void payloads_errors_groups_and_keys_are_escaped_everywhere() {
        String auth = "Bearer " + ConsoleFixture.TOKEN;
        String work = http.get("/queues/mail", "Authorization", auth).body();
        assertTrue(work.contains("<code class=\"payload\">&lt;script&gt;alert(1)&lt;/script&gt;</code>"), work);
        assertTrue(work.contains("<code class=\"error\">&lt;img src=x onerror=alert(2)&gt;</code>"), work);
        assertFalse(work.contains("<script>alert"), work);
        assertFalse(work.contains("<img"), work);

        String ring = http.get("/queues/fruit?group=basket", "Authorization", auth).body();
        assertTrue(ring.contains("&lt;b&gt;plums&lt;/b&gt;"), ring);
        assertTrue(ring.contains("&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"), ring);
        assertFalse(ring.contains("<script>alert") || ring.contains("<b>plums"), ring);
        String evil = http.get("/queues/fruit?group=%22%3E%3Cscript%3Ealert(3)%3C/script%3E", "Authorization", auth)
                .body();
        assertTrue(evil.contains("value=\"&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;\""), evil);
        assertFalse(evil.contains("<script>alert"), evil);

        String counters = http.get("/queues/booksales?key=%3Cu%3Ex", "Authorization", auth).body();
        assertTrue(counters.contains("&lt;i&gt;key&lt;/i&gt;"), counters);
        assertTrue(counters.contains("&lt;u&gt;x"), counters);
        assertFalse(counters.contains("<i>key") || counters.contains("<u>x"), counters);

        String json = http.get("/api/queues/mail", "Authorization", auth).body();
        assertTrue(json.contains("\"payload\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\""), json);
        assertTrue(json.contains("\"lastError\":\"timeout\\nat line 2\""), json);

        String missing = http.get("/queues/%3Cscript%3E", "Authorization", auth).body();
        assertTrue(missing.contains("No queue named &#39;&lt;script&gt;&#39;"), missing);
    }

    @Test
    void jobs_are_listed_by_state_found_by_id_or_key_and_shown_whole_and_escaped() {
        String auth = "Bearer " + ConsoleFixture.TOKEN;
        long keyed = f.mail.enqueue("<b>keyed</b>", Enqueue.defaults().withKey("tenant <7>"));
        String ready = http.get("/queues/mail/jobs?state=ready", "Authorization", auth).body();
        assertTrue(ready.contains("ready jobs, oldest first"), ready);
        assertTrue(ready.contains("<code class=\"payload\">ready one</code>"), ready);
        assertTrue(ready.contains("<code class=\"payload\">&lt;b&gt;keyed&lt;/b&gt;</code>"), ready);
        assertFalse(ready.contains("later"), "a scheduled job is not ready");
        String dead = http.get("/queues/mail/jobs?state=dead&order=newest", "Authorization", auth).body();
        assertTrue(dead.indexOf("id=\"job-" + f.dead.get(2) + "\"") < dead.indexOf("id=\"job-" + f.dead.get(0) + "\""),
                "newest first");
        assertTrue(dead.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !dead.contains("<script>alert"), dead);

        HttpResponse<String> byId = http.get("/queues/mail/jobs?q=" + f.dead.get(1), "Authorization", auth);
        assertEquals(303, byId.statusCode());
        assertEquals("/queues/mail/jobs/" + f.dead.get(1), byId.headers().firstValue("Location").orElseThrow());
        String job = http.get("/queues/mail/jobs/" + f.dead.get(1), "Authorization", auth).body();
        assertTrue(job.contains("<pre class=\"payload\">&lt;script&gt;alert(1)&lt;/script&gt;</pre>"), job);
        assertTrue(job.contains("<pre class=\"error\">&lt;img src=x onerror=alert(2)&gt;</pre>"), job);
        assertFalse(job.contains("<img") || job.contains("<script>alert"), job);
        assertFalse(job.contains("/cancel"), "a dead job has no cancel button");
        String whole = http.get("/queues/mail/jobs/" + f.dead.get(2), "Authorization", auth).body();
        assertTrue(whole.contains("x".repeat(300)), "the detail shows the whole payload");

        HttpResponse<String> byKey = http.get("/queues/mail/jobs?q=tenant+%3C7%3E", "Authorization", auth);
        assertEquals("/queues/mail/jobs?state=all&key=tenant+%3C7%3E",
                byKey.headers().firstValue("Location").orElseThrow());
        String keyPage = http.get("/queues/mail/jobs?state=all&key=tenant+%3C7%3E", "Authorization", auth).body();
        assertTrue(keyPage.contains("id=\"job-" + keyed + "\""), keyPage);
        assertEquals(1, keyPage.split("<tr id=\"job-", -1).length - 1, keyPage);
        assertTrue(keyPage.contains("of key tenant &lt;7&gt;"), keyPage);

        String json = http.get("/api/queues/mail/jobs?state=all&order=oldest&limit=2", "Authorization", auth).body();
        assertTrue(json.startsWith("{\"queue\":\"mail\",\"state\":\"all\",\"order\":\"oldest\",\"key\":null,"
                + "\"limit\":2,\"jobs\":[{\"id\":" + f.dead.get(0) + ",\"state\":\"dead\","), json);
        assertTrue(json.endsWith(",\"next\":" + f.dead.get(1) + "}"), json);
        String next = http.get("/api/queues/mail/jobs?state=all&order=oldest&limit=2&after=" + f.dead.get(1),
                "Authorization", auth).body();
        assertTrue(next.contains("\"jobs\":[{\"id\":" + f.dead.get(2) + ","), next);
        String one = http.get("/api/queues/mail/jobs/" + f.dead.get(1), "Authorization", auth).body();
        assertTrue(one.contains("\"payload\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\""), one);
        assertTrue(one.contains("\"lastError\":\"\\u003cimg src=x onerror=alert(2)\\u003e\""), one);
        assertEquals(404, http.get("/api/queues/mail/jobs/999999", "Authorization", auth).statusCode());
        assertEquals(404, http.get("/queues/mail/jobs/999999", "Authorization", auth).statusCode());

        for (String bad : List.of("/queues/mail/jobs?state=bogus", "/queues/mail/jobs?order=sideways",
                "/queues/mail/jobs?after=-1", "/queues/mail/jobs?after=x", "/api/queues/mail/jobs?limit=0",
                "/api/queues/mail/jobs?limit=1001", "/queues/mail/jobs/0", "/queues/mail/jobs/abc",
                "/api/queues/mail/jobs/-4")) {
            assertEquals(400, http.get(bad, "Authorization", auth).statusCode(), bad);
        }
        assertEquals(404, http.get("/queues/fruit/jobs", "Authorization", auth).statusCode(), "a ring has no jobs");
    }

    @Test
    void a_scheduled_job_is_cancelled_by_a_post_with_its_csrf_token_and_a_leased_one_is_refused() {
        long later = f.mail.jobs(JobQuery.all().withState(JobState.SCHEDULED)).jobs().get(0).id();
        http.signIn(ConsoleFixture.TOKEN);
        String page = http.get("/queues/mail/jobs/" + later, "Cookie", http.cookie).body();
        assertTrue(page.contains("href=\"/queues/mail/jobs/" + later + "/cancel\""), "asks first: " + page);
        assertFalse(page.contains("action=\"/queues/mail/jobs/" + later + "/cancel\""), "no cancel in one click");
        String confirm = http.get("/queues/mail/jobs/" + later + "/cancel", "Cookie", http.cookie).body();
        assertTrue(confirm.contains("action=\"/queues/mail/jobs/" + later + "/cancel\""), confirm);
        assertTrue(f.mail.job(later).isPresent(), "asking cancels nothing");
        String csrf = http.csrf("/queues/mail/jobs/" + later + "/cancel");
        assertEquals(403, http.post("/queues/mail/jobs/" + later + "/cancel", Map.of(), "Cookie", http.cookie)
                .statusCode(), "no CSRF token");
        assertTrue(f.mail.job(later).isPresent());
        HttpResponse<String> done = http.post("/queues/mail/jobs/" + later + "/cancel", form("csrf", csrf), "Cookie",
                http.cookie);
        assertEquals(303, done.statusCode(), done.body());
        assertEquals("/queues/mail?done=cancelled&id=" + later, done.headers().firstValue("Location").orElseThrow());
        assertTrue(f.mail.job(later).isEmpty(), "cancelled in the database");
        assertTrue(http.get("/queues/mail?done=cancelled&id=" + later, "Cookie", http.cookie).body()
                .contains("Job " + later + " is cancelled: no consumer will get it."));

        Job leased = f.mail.claim(1).get(0);
        String auth = "Bearer " + ConsoleFixture.TOKEN;
        HttpResponse<String> refused = http.post("/api/queues/mail/jobs/" + leased.id() + "/cancel", Map.of(),
                "Authorization", auth);
        assertEquals(409, refused.statusCode());
        assertTrue(refused.body().startsWith("{\"id\":" + leased.id() + ",\"cancelled\":false,\"outcome\":\"leased\","),
                refused.body());
        assertTrue(f.mail.ack(leased), "the consumer still holds it");
        HttpResponse<String> html = http.post("/queues/mail/jobs/" + f.dead.get(0) + "/cancel", form("csrf", csrf),
                "Cookie", http.cookie);
        assertEquals("/queues/mail/jobs/" + f.dead.get(0) + "?done=cancel-dead&id=" + f.dead.get(0),
                html.headers().firstValue("Location").orElseThrow());
        assertEquals(409, http.post("/api/queues/mail/jobs/" + f.dead.get(0) + "/cancel", Map.of(), "Authorization",
                auth).statusCode());
        assertEquals(404, http.post("/api/queues/mail/jobs/999999/cancel", Map.of(), "Authorization", auth)
                .statusCode());
        assertEquals(3, f.mail.deadLetters(10).size(), "dead jobs are not cancelled");
    }

    @Test
    void every_response_carries_the_security_headers() {
        String auth = "Bearer " + ConsoleFixture.TOKEN;
        for (HttpResponse<String> r : List.of(http.get("/"), http.get("/sign-in"), http.get("/assets/console.css"),
                http.get("/queues/mail", "Authorization", auth), http.get("/api/queues", "Authorization", auth),
                http.get("/nothing", "Authorization", auth), http.post("/sign-in", form("token", "x")))) {
            String where = r.request().method() + " " + r.uri();
            assertEquals(Console.CSP, r.headers().firstValue("Content-Security-Policy").orElseThrow(), where);
            assertFalse(Console.CSP.contains("unsafe"), Console.CSP);
            assertTrue(Console.CSP.contains("frame-ancestors 'none'"));
            assertEquals("DENY", r.headers().firstValue("X-Frame-Options").orElseThrow(), where);
            assertEquals("nosniff", r.headers().firstValue("X-Content-Type-Options").orElseThrow(), where);
            assertEquals("same-origin", r.headers().firstValue("Referrer-Policy").orElseThrow(), where);
            String cache = r.headers().firstValue("Cache-Control").orElseThrow();
            assertEquals(r.uri().getPath().startsWith("/assets/") ? "public, max-age=300" : "no-store", cache, where);
        }
        String page = http.get("/queues/mail", "Authorization", auth).body();
        assertFalse(page.contains("style="), "no inline style");
        assertFalse(page.matches("(?s).*<script>.*"), "no inline script");
    }

    @Test
    void a_host_that_is_not_loopback_is_refused_on_a_loopback_console() {
        HttpResponse<String> r = http.get("/", "Host", "rebound.example:" + f.server.port(), "Authorization",
                "Bearer " + ConsoleFixture.TOKEN);
        assertEquals(421, r.statusCode());
        assertEquals(200, http.get("/", "Host", "localhost:" + f.server.port(), "Authorization",
                "Bearer " + ConsoleFixture.TOKEN).statusCode());
    }

    @Test
    void every_change_is_in_the_audit_log_with_the_credential_identifier_and_never_the_secret() throws Exception {
        Path logFile = Path.of(System.getProperty("org.slf4j.simpleLogger.logFile"));
        http.signIn(ConsoleFixture.TOKEN);
        String csrf = http.csrf("/queues/mail");
        long id = f.dead.get(2);
        assertEquals(303, http.post("/queues/mail/dead/" + id + "/revive", form("csrf", csrf), "Cookie", http.cookie)
                .statusCode());
        assertEquals(200, http.post("/api/queues/mail/dead/revive-all", Map.of(), "Authorization",
                "Bearer " + ConsoleFixture.TOKEN).statusCode());
        assertEquals(403, http.post("/queues/mail/dead/revive-all", Map.of(), "Cookie", http.cookie).statusCode());

        String tokenId = tokenId();
        String log = Files.readString(logFile);
        assertTrue(log.matches("(?s).*INFO dev\\.rowqueue\\.console\\.audit - rowqueue console: revived dead job " + id
                + " of work queue mail; by session \\d+ \\(" + tokenId + "\\) from 127\\.0\\.0\\.1\\R.*"), log);
        assertTrue(log.matches("(?s).*INFO dev\\.rowqueue\\.console\\.audit - rowqueue console: revived 2 dead jobs of"
                + " work queue mail; by " + tokenId + " from 127\\.0\\.0\\.1\\R.*"), log);
        assertTrue(log.matches("(?s).*WARN dev\\.rowqueue\\.console\\.audit - rowqueue console: refused POST"
                + " /queues/mail/dead/revive-all by session \\d+ \\(" + tokenId + "\\) from 127\\.0\\.0\\.1: This change"
                + " carried no valid CSRF token.*"), log);
        assertTrue(log.contains("rowqueue console: signed in, session"), log);
        assertFalse(log.contains(ConsoleFixture.TOKEN), "the token is never logged");
        assertFalse(log.contains(http.cookie.substring(http.cookie.indexOf('=') + 1)), "nor a session id");
        assertNotEquals("", tokenId);
    }

    private static String tokenId() {
        return "token sha256:" + java.util.HexFormat.of().formatHex(TokenAuth.sha256(ConsoleFixture.TOKEN), 0, 4);
    }
}
