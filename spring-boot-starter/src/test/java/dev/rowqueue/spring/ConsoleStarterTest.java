package dev.rowqueue.spring;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console mounted by the starter in a real servlet container (Tomcat): behind the application's Spring Security,
 * and, without Spring Security, with its own token.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConsoleStarterTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();
    private static final String PASSWORD = "operator-password-1";
    private static final String TOKEN = "starter-console-token-0123456789";
    /** Spring Boot's security auto-configurations: excluded for an application without Spring Security. */
    private static final String NO_SECURITY = "spring.autoconfigure.exclude="
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration";

    /** A running application and the dead job of its work queue {@code mail}. */
    private record App(ConfigurableApplicationContext context, URI base, long deadId) implements AutoCloseable {
        List<Long> dead() {
            return context.getBean(RowQueues.class).workQueue("mail").deadLetters(10).stream().map(Job::id).toList();
        }

        @Override
        public void close() {
            context.close();
        }
    }

    private static App start(String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "spring.datasource.url=jdbc:h2:mem:console_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1",
                "spring.datasource.username=sa", "server.port=0", "server.address=127.0.0.1",
                "rowqueue.console.enabled=true", "logging.level.dev.rowqueue.console.audit=info",
                "spring.security.user.name=operator", "spring.security.user.password=" + PASSWORD));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ConsoleTestApp.class)
                .web(WebApplicationType.SERVLET).properties(all.toArray(String[]::new)).run();
        WorkQueue mail = context.getBean(RowQueues.class).workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
        long id = mail.enqueue("hello");
        Job job = mail.claim(1).get(0);
        mail.nack(job, Duration.ZERO, "boom");
        int port = ((ServletWebServerApplicationContext) context).getWebServer().getPort();
        return new App(context, URI.create("http://127.0.0.1:" + port + "/"), id);
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest.Builder b) {
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest.Builder post(URI uri, Map<String, String> form) {
        String body = form.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
        return HttpRequest.newBuilder(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private static String field(String html, String name) {
        Matcher m = Pattern.compile("<input[^>]*name=\"" + Pattern.quote(name)
                + "\"[^>]*value=\"([^\"]+)\"").matcher(html);
        assertTrue(m.find(), () -> "no field " + name + " in " + html);
        return m.group(1);
    }

    private static HttpClient plain() {
        return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private static String basic() {
        return "Basic " + Base64.getEncoder().encodeToString(("operator:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void behind_spring_security_only_its_users_get_in_and_a_post_needs_both_csrf_tokens(CapturedOutput output) {
        try (App app = start()) {
            HttpClient http = plain();
            URI page = app.base().resolve("rowqueue/queues/mail");
            HttpResponse<String> anonymous = send(http, HttpRequest.newBuilder(page));
            assertTrue(anonymous.statusCode() == 401 || anonymous.statusCode() == 302, anonymous::toString);
            assertFalse(anonymous.body().contains("mail"), anonymous.body());

            HttpResponse<String> withBasic = send(http, HttpRequest.newBuilder(page).header("Authorization", basic()));
            assertEquals(200, withBasic.statusCode());
            assertTrue(withBasic.body().contains("<h1>mail "), withBasic.body());
            assertTrue(withBasic.body().contains("user &#39;operator&#39;"), withBasic.body());
            assertFalse(withBasic.body().contains("/sign-out"), "Spring Security signs people out, not the console");
            URI revive = app.base().resolve("rowqueue/queues/mail/dead/" + app.deadId() + "/revive");
            // HTTP Basic is ambient: a POST without the CSRF tokens is refused (Spring Security's CSRF filter runs before
            // its Basic filter, so it refuses as for an anonymous request: 401)
            int basicPost = send(http, post(revive, Map.of()).header("Authorization", basic())).statusCode();
            assertTrue(basicPost == 401 || basicPost == 403, "refused: " + basicPost);
            assertEquals(List.of(app.deadId()), app.dead());

            // a browser: form login, then a session
            HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                    .cookieHandler(new CookieManager()).build();
            String login = send(browser, HttpRequest.newBuilder(app.base().resolve("login"))).body();
            HttpResponse<String> signedIn = send(browser, post(app.base().resolve("login"), Map.of("username",
                    "operator", "password", PASSWORD, "_csrf", field(login, "_csrf"))));
            assertEquals(302, signedIn.statusCode(), signedIn::toString);
            String html = send(browser, HttpRequest.newBuilder(page)).body();
            String springCsrf = field(html, "_csrf");
            String consoleCsrf = field(html, "csrf");
            assertEquals(403, send(browser, post(revive, Map.of("_csrf", springCsrf))).statusCode(),
                    "the console's own token is missing");
            assertEquals(403, send(browser, post(revive, Map.of("csrf", consoleCsrf))).statusCode(),
                    "Spring Security's token is missing");
            assertEquals(List.of(app.deadId()), app.dead(), "nothing revived by a refused request");
            Map<String, String> both = new LinkedHashMap<>();
            both.put("_csrf", springCsrf);
            both.put("csrf", consoleCsrf);
            HttpResponse<String> ok = send(browser, post(revive, both));
            assertEquals(303, ok.statusCode(), ok::toString);
            assertEquals("/rowqueue/queues/mail?done=revived&id=" + app.deadId(),
                    ok.headers().firstValue("Location").orElseThrow());
            assertEquals(List.of(), app.dead());
            assertTrue(output.getAll().contains("rowqueue console: revived dead job " + app.deadId()
                    + " of work queue mail; by user 'operator' from 127.0.0.1"), output.getAll());
        }
    }

    @Test
    void a_role_can_be_required(CapturedOutput output) {
        try (App app = start("rowqueue.console.role=RQ_OPERATOR")) {
            HttpResponse<String> r = send(plain(), HttpRequest.newBuilder(app.base().resolve("rowqueue/"))
                    .header("Authorization", basic()));
            assertEquals(403, r.statusCode());
            assertTrue(r.body().contains("The console needs the role RQ_OPERATOR, which user &#39;operator&#39; does"
                    + " not have."), r.body());
            assertTrue(output.getAll().contains("refused GET / by user 'operator'"), output.getAll());
        }
    }

    @Test
    void without_spring_security_the_console_uses_its_own_token_under_its_path() {
        try (App app = start(NO_SECURITY, "rowqueue.console.token=" + TOKEN, "rowqueue.console.path=/ops/queues/")) {
            HttpClient http = plain();
            HttpResponse<String> anonymous = send(http, HttpRequest.newBuilder(app.base().resolve("ops/queues/")));
            assertEquals(303, anonymous.statusCode());
            assertEquals("/ops/queues/sign-in?next=%2F", anonymous.headers().firstValue("Location").orElseThrow());
            HttpResponse<String> bearer = send(http, HttpRequest.newBuilder(app.base().resolve(
                    "ops/queues/queues/mail")).header("Authorization", "Bearer " + TOKEN));
            assertEquals(200, bearer.statusCode());
            assertTrue(bearer.body().contains("href=\"/ops/queues/assets/console.css\""), bearer.body());
            HttpResponse<String> signIn = send(http, post(app.base().resolve("ops/queues/sign-in"),
                    Map.of("token", TOKEN, "next", "/queues/mail")));
            assertEquals("/ops/queues/queues/mail", signIn.headers().firstValue("Location").orElseThrow());
            assertTrue(signIn.headers().firstValue("Set-Cookie").orElseThrow()
                    .endsWith("; Path=/ops/queues/; HttpOnly; SameSite=Strict"), signIn::toString);
            assertEquals(200, send(http, HttpRequest.newBuilder(app.base().resolve("ops/queues/assets/console.css")))
                    .statusCode());
        }
    }

    @Test
    void without_spring_security_and_without_a_token_the_application_does_not_start() {
        Exception e = assertThrows(Exception.class, () -> start(NO_SECURITY).close());
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertTrue(root.getMessage().contains("rowqueue.console.enabled=true needs a credential"), root::toString);
    }

    @Test
    void without_rowqueue_console_enabled_nothing_is_mounted() {
        try (App app = start(NO_SECURITY, "rowqueue.console.enabled=false", "rowqueue.console.token=" + TOKEN)) {
            assertEquals(404, send(plain(), HttpRequest.newBuilder(app.base().resolve("rowqueue/"))
                    .header("Authorization", "Bearer " + TOKEN)).statusCode());
        }
    }
}
