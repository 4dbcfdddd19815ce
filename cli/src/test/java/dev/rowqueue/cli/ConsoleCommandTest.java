package dev.rowqueue.cli;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rowqueue console} on an H2 file: the "done when", run through the command line's own entry point. */
class ConsoleCommandTest {
    private static final String TOKEN = "console-test-token-0123456789";
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TempDir
    Path dir;
    private String url;
    private long deadId;

    @BeforeEach
    void database() {
        url = "jdbc:h2:file:" + dir.resolve("app").toAbsolutePath();
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            WorkQueue mail = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
            deadId = mail.enqueue("hello");
            Job job = mail.claim(1).get(0);
            mail.nack(job, Duration.ZERO, "boom");
        }
    }

    /** Runs {@code console} with these arguments until {@code session} returns, then stops it. */
    private <T> T withConsole(Map<String, String> env, Function<ConsoleCommand.Started, T> session, String... args)
            throws Exception {
        CompletableFuture<ConsoleCommand.Started> started = new CompletableFuture<>();
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> Cli.run(CliEnv.of(env, false, null),
                cl -> ((ConsoleCommand) cl.getSubcommands().get("console").getCommand()).started = started::complete,
                args));
        ConsoleCommand.Started s;
        try {
            s = CompletableFuture.anyOf(started, run).thenApply(x -> started.getNow(null)).get(60, TimeUnit.SECONDS);
            if (s == null) {
                throw new AssertionError("the console did not start: " + run.get());
            }
        } catch (RuntimeException e) {
            throw new AssertionError(e);
        }
        try {
            return session.apply(s);
        } finally {
            s.stop().run();
            Cli.Result r = run.get(30, TimeUnit.SECONDS);
            assertEquals(0, r.code(), r::toString);
            last = r;
        }
    }

    private Cli.Result last;

    private static HttpResponse<String> send(HttpRequest.Builder b) {
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void on_an_h2_file_it_wants_a_credential_answers_the_bearer_token_and_refuses_a_post_without_its_csrf_token()
            throws Exception {
        withConsole(Map.of(ConsoleCommand.TOKEN_ENV, TOKEN), s -> {
            URI base = s.uri();
            HttpResponse<String> anonymous = send(HttpRequest.newBuilder(base.resolve("queues/mail")));
            assertEquals(303, anonymous.statusCode());
            assertEquals("/sign-in?next=%2Fqueues%2Fmail", anonymous.headers().firstValue("Location").orElseThrow());
            assertEquals(401, send(HttpRequest.newBuilder(base.resolve("api/queues"))).statusCode());

            HttpResponse<String> bearer = send(HttpRequest.newBuilder(base.resolve("queues/mail"))
                    .header("Authorization", "Bearer " + TOKEN));
            assertEquals(200, bearer.statusCode());
            assertTrue(bearer.body().contains("<h1>mail "), bearer.body());

            HttpResponse<String> signIn = send(HttpRequest.newBuilder(base.resolve("sign-in"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("token=" + TOKEN + "&next=%2F")));
            assertEquals(303, signIn.statusCode());
            String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            HttpResponse<String> forged = send(HttpRequest.newBuilder(base.resolve("queues/mail/dead/" + deadId
                    + "/revive")).header("Cookie", cookie).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("")));
            assertEquals(403, forged.statusCode());
            return null;
        }, "console", "--url", url, "--port", "0");
        assertTrue(last.out().contains("rowqueue console on H2 2."), last.out());
        assertTrue(last.out().matches("(?s).*  http://127\\.0\\.0\\.1:\\d+/\\R.*"), last.out());
        assertTrue(last.out().contains("  token: from ROWQUEUE_CONSOLE_TOKEN (token sha256:"), last.out());
        assertFalse(last.out().contains(TOKEN), "a token of the user's is not printed");
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            assertEquals(List.of(deadId), rq.workQueue("mail").deadLetters(10).stream().map(Job::id).toList(),
                    "the forged revive changed nothing");
        }
    }

    @Test
    void without_a_token_in_the_environment_it_prints_a_random_one_that_works() throws Exception {
        String token = withConsole(new HashMap<>(), s -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(s.uri().resolve("api/queues"))
                    .header("Authorization", "Bearer " + s.token()));
            assertEquals(200, r.statusCode());
            assertTrue(r.body().contains("\"name\":\"mail\""), r.body());
            return s.token();
        }, "console", "--url", url, "--port", "0");
        assertTrue(token.matches("[A-Za-z0-9_-]{43}"), token);
        assertTrue(last.out().contains("  token: " + token + "  (random for this run; set ROWQUEUE_CONSOLE_TOKEN to"
                + " choose one)"), last.out());
    }

    @Test
    void read_only_serves_no_change() throws Exception {
        withConsole(Map.of(ConsoleCommand.TOKEN_ENV, TOKEN), s -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(s.uri().resolve("api/queues/mail/dead/revive-all"))
                    .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.noBody()));
            assertEquals(404, r.statusCode());
            return null;
        }, "console", "--url", url, "--port", "0", "--read-only");
        assertTrue(last.out().contains("  (read-only)"), last.out());
    }

    @Test
    void a_short_token_is_bad_usage() {
        Cli.Result r = Cli.run(CliEnv.of(Map.of(ConsoleCommand.TOKEN_ENV, "short"), false, null), "console", "--url",
                url, "--port", "0");
        assertEquals(ExitCode.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("ROWQUEUE_CONSOLE_TOKEN: the console token must be at least 16 characters long,"
                + " got 5"), r.err());
    }
}
