package dev.rowqueue.cli;

import dev.rowqueue.RingEntry;
import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built jar, run as users run it: {@code java -jar rowqueue.jar ...} in a process of its own, without a terminal. */
class JarIT {

    private static Cli.Result java(Map<String, String> env, String... args) throws Exception {
        Path jar = Path.of(System.getProperty("rowqueue.jar", "target/rowqueue.jar"));
        assertTrue(Files.isRegularFile(jar), "build the jar first: " + jar.toAbsolutePath());
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("ROWQUEUE_PASSWORD");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the jar finishes");
        return new Cli.Result(p.exitValue(), out.get(), err.get());
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void demo_runs_from_the_jar_in_plain_text() throws Exception {
        Cli.Result r = java(Map.of("TERM", "xterm-256color"), "demo");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("|   6 |    1 | bananas  |"), r.out());
        assertTrue(r.out().contains("The batch rolls over right inside the result: 1 follows 20."), r.out());
        assertFalse(r.out().contains("\u001b["), "no terminal, no colour, even with TERM set");
        assertEquals("", r.err());
    }

    @Test
    void version_help_and_usage_errors() throws Exception {
        Cli.Result version = java(Map.of(), "--version");
        assertEquals(0, version.code(), version::toString);
        assertTrue(version.out().startsWith("rowqueue 0.1.0-SNAPSHOT\n"), version.out());

        Cli.Result help = java(Map.of(), "--help");
        assertEquals(0, help.code(), help::toString);
        for (String command : List.of("demo", "tck", "schema", "queues", "ring", "work", "counter", "migrate",
                "dialects")) {
            assertTrue(help.out().contains("  " + command + " "), command + " in " + help.out());
        }
        assertTrue(help.out().contains("Exit codes:"), help.out());

        Cli.Result bad = java(Map.of(), "schema", "--dialect", "sybase", "--work", "mail");
        assertEquals(ExitCode.USAGE, bad.code(), bad::toString);
        assertTrue(bad.err().matches("(?s).*no dialect named 'sybase'; known: (.+, )?h2, (.+, )?portable\\R"), bad.err());
    }

    @Test
    void the_jar_bundles_the_postgresql_and_mariadb_drivers_but_not_mysql_connector_j() throws Exception {
        for (String url : List.of("jdbc:postgresql://127.0.0.1:1/none", "jdbc:mariadb://127.0.0.1:1/none")) {
            Cli.Result r = java(Map.of(), "queues", "--url", url);
            assertEquals(ExitCode.DATABASE, r.code(), r::toString);
            assertTrue(r.err().contains("cannot connect to " + url), "the driver is there: " + r.err());
        }
        Cli.Result mysql = java(Map.of(), "queues", "--url", "jdbc:mysql://127.0.0.1:1/none");
        assertEquals(ExitCode.DATABASE, mysql.code(), mysql::toString);
        assertTrue(mysql.err().contains("no JDBC driver takes jdbc:mysql://127.0.0.1:1/none"), mysql.err());
    }

    @Test
    void the_tck_runs_from_the_jar_and_writes_its_report(@TempDir Path out) throws Exception {
        Cli.Result r = java(Map.of(), "tck", "--url", "jdbc:h2:mem:jar_tck;DB_CLOSE_DELAY=-1", "--out",
                out.toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("PASSED     jdbc:h2:mem:jar_tck — H2 2.")), r.out());
        assertTrue(Files.readString(out.resolve("ConfiguredTck.html")).contains("verdict PASSED"));
        assertTrue(Files.exists(out.resolve("ConfiguredTck.md")));
        assertTrue(Files.exists(out.resolve("ConfiguredTck.json")));
    }

    @Test
    void migrate_and_inspect_h2_files_from_the_jar(@TempDir Path dir) throws Exception {
        String source = "jdbc:h2:file:" + dir.resolve("source").toAbsolutePath();
        String target = "jdbc:h2:file:" + dir.resolve("target").toAbsolutePath();
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(source, "sa", "")).build()) {
            rq.ring("fruit", 5).pushAll("basket", List.of("apples", "oranges", "peaches", "cherries", "pears",
                    "bananas"));
            rq.workQueue("mail").enqueueAll(List.of("a", "b", "c"), dev.rowqueue.Enqueue.defaults());
            rq.counters("booksales").increment("Bulldozer", 13);
        }
        Map<String, String> passwords = Map.of("ROWQUEUE_PASSWORD", "");
        Cli.Result migrate = java(passwords, "migrate", "--from", source, "--from-user", "sa", "--to", target,
                "--to-user", "sa", "--batch-size", "2");
        assertEquals(0, migrate.code(), migrate::toString);
        assertTrue(migrate.out().contains("VERIFIED: 3 queues, 10 rows"), migrate.out());
        assertFalse(migrate.err().contains("\r"), "no progress bar without a terminal");

        Cli.Result list = java(passwords, "ring", "list", "fruit", "--url", target, "--user", "sa");
        assertEquals(0, list.code(), list::toString);
        assertTrue(list.out().contains("|   6 | "), list.out());
        assertFalse(list.out().contains("apples"), list.out());

        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(target, "sa", "")).build()) {
            assertEquals(List.of("oranges", "peaches", "cherries", "pears", "bananas"),
                    rq.ring("fruit", 5).oldestFirst("basket").stream().map(RingEntry::payload).toList());
            assertEquals(7, rq.ring("fruit", 5).push("basket", "kiwi"));
            assertEquals(3, rq.workQueue("mail").stats().ready());
            assertEquals(13, rq.counters("booksales").get("Bulldozer"));
        }
    }
}
