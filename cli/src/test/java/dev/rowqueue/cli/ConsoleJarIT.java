package dev.rowqueue.cli;

import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code java -jar rowqueue.jar console} in a process of its own: the jar bundles the console, pages and assets. */
class ConsoleJarIT {
    private static final String TOKEN = "jar-console-token-0123456789";

    @Test
    void the_jar_serves_the_console_and_logs_changes(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("app").toAbsolutePath();
        long id;
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            WorkQueue mail = rq.workQueue("mail", WorkQueueOptions.defaults().withMaxAttempts(1));
            id = mail.enqueue("hello");
            Job job = mail.claim(1).get(0);
            mail.nack(job, Duration.ZERO, "boom");
        }
        Path jar = Path.of(System.getProperty("rowqueue.jar", "target/rowqueue.jar"));
        assertTrue(Files.isRegularFile(jar), "build the jar first: " + jar.toAbsolutePath());
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString(), "console", "--url", url, "--port", "0").redirectError(err.toFile());
        pb.environment().put("ROWQUEUE_CONSOLE_TOKEN", TOKEN);
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            URI base = null;
            Pattern at = Pattern.compile("\\s+(http://127\\.0\\.0\\.1:\\d+/).*");
            for (String line = out.readLine(); line != null && base == null; line = out.readLine()) {
                Matcher m = at.matcher(line);
                if (m.matches()) {
                    base = URI.create(m.group(1));
                }
            }
            assertTrue(base != null, () -> "no address printed; stderr: " + read(err));
            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            HttpResponse<String> css = http.send(HttpRequest.newBuilder(base.resolve("assets/console.css")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, css.statusCode());
            assertTrue(css.body().contains("rowqueue console"), "the stylesheet is in the jar");
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(base.resolve("queues/mail"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("<h1>mail "), page.body());
            HttpResponse<String> revive = http.send(HttpRequest.newBuilder(base.resolve("api/queues/mail/dead/" + id
                    + "/revive")).header("Authorization", "Bearer " + TOKEN)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, revive.statusCode(), revive.body());
        } finally {
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "stops on SIGTERM");
        }
        String log = read(err);
        assertTrue(log.contains("INFO dev.rowqueue.console.audit - rowqueue console: revived dead job " + id
                + " of work queue mail; by token sha256:"), log);
        assertTrue(!log.contains(TOKEN), log);
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            assertEquals(List.of(), rq.workQueue("mail").deadLetters(10));
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
