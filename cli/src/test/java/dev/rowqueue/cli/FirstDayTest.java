package dev.rowqueue.cli;

import dev.rowqueue.Counters;
import dev.rowqueue.Enqueue;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command-line papercuts of issue 24, each as a new user met it. */
class FirstDayTest {

    private final List<String> shutdown = new java.util.ArrayList<>();

    private String database(String user, String password) throws Exception {
        String url = "jdbc:h2:mem:first_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        try (Connection c = java.sql.DriverManager.getConnection(url, user, password)) {
            c.getMetaData();
        }
        shutdown.add(url + "\n" + user + "\n" + password);
        return url;
    }

    @AfterEach
    void close() throws Exception {
        for (String s : shutdown) {
            String[] p = s.split("\n", -1);
            try (Connection c = java.sql.DriverManager.getConnection(p[0], p[1], p[2]);
                 Statement st = c.createStatement()) {
                st.execute("SHUTDOWN");
            }
        }
    }

    @Test
    void item1_migrate_user_applies_to_both_sides() throws Exception {
        String from = database("rq", "pw");
        String to = database("rq", "pw");
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(from, "rq", "pw")).build()) {
            rq.workQueue("mail").enqueue("hello");
        }
        Cli.Result r = Cli.run(CliEnv.of(Map.of("ROWQUEUE_PASSWORD", "pw"), false, null),
                "migrate", "--from", from, "--to", to, "--user", "rq");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("VERIFIED: 1 queue"), r.out());
        Cli.Result shortOption = Cli.run(CliEnv.of(Map.of("ROWQUEUE_PASSWORD", "pw"), false, null),
                "migrate", "--from", from, "--to", to, "-u", "rq");
        assertEquals(0, shortOption.code(), shortOption::toString);
    }

    @Test
    void item2_dialect_aliases() {
        for (String alias : List.of("postgres", "pg", "pgsql", "PostgreSQL")) {
            Cli.Result r = Cli.run("schema", "--dialect", alias, "--version", "13.4", "--counters", "booksales");
            assertEquals(0, r.code(), r::toString);
            assertTrue(r.out().contains("dialect postgresql, assuming PostgreSQL 13.4"), r.out());
        }
        Cli.Result maria = Cli.run("schema", "--dialect", "maria", "--work", "mail");
        assertEquals(0, maria.code(), maria::toString);
        assertTrue(maria.out().contains("dialect mariadb"), maria.out());
        assertEquals("postgresql", DialectName.canonical("pg"));
        assertEquals("h2", DialectName.canonical("h2"));
    }

    @Test
    void item3_mysql_and_mariadb_triggers_come_between_delimiters() {
        for (String dialect : List.of("mariadb", "maria")) { // MySQL proper has no push trigger
            Cli.Result r = Cli.run("schema", "--dialect", dialect, "--ring", "recent_views", "--capacity", "10");
            assertEquals(0, r.code(), r::toString);
            assertTrue(r.out().contains("DELIMITER //\nCREATE TRIGGER"), r.out());
            assertTrue(r.out().contains("\n//\nDELIMITER ;\n"), r.out());
            for (String line : r.out().split("\n")) {
                if (line.startsWith("CREATE TABLE")) {
                    assertTrue(line.endsWith(";"), line);
                }
            }
            Cli.Result raw = Cli.run("schema", "--dialect", dialect, "--ring", "recent_views", "--capacity", "10",
                    "--no-delimiter");
            assertEquals(0, raw.code(), raw::toString);
            assertFalse(raw.out().contains("DELIMITER"), raw.out());
        }
        Cli.Result h2 = Cli.run("schema", "--dialect", "h2", "--ring", "recent_views", "--capacity", "10");
        assertFalse(h2.out().contains("DELIMITER"), h2.out());
    }

    @Test
    void item7_no_prompt_for_a_database_that_needs_no_password() throws Exception {
        String open = database("sa", "");
        AtomicInteger prompts = new AtomicInteger();
        Cli.Result r = Cli.run(prompting(prompts, "whatever"), "queues", "--url", open, "--user", "sa");
        assertEquals(0, r.code(), r::toString);
        assertEquals(0, prompts.get(), "asked for a password a database without one does not need");
    }

    @Test
    void item7_prompt_after_the_database_refuses_the_credentials() throws Exception {
        String locked = database("sa", "secret");
        AtomicInteger prompts = new AtomicInteger();
        Cli.Result r = Cli.run(prompting(prompts, "secret"), "queues", "--url", locked, "--user", "sa");
        assertEquals(0, r.code(), r::toString);
        assertEquals(1, prompts.get());
        Cli.Result noTerminal = Cli.run(CliEnv.of(Map.of(), false, null), "queues", "--url", locked, "--user", "sa");
        assertEquals(ExitCode.DATABASE, noTerminal.code(), noTerminal::toString);
    }

    @Test
    void item7_password_prompt_asks_first() throws Exception {
        String open = database("sa", "");
        AtomicInteger prompts = new AtomicInteger();
        Cli.Result r = Cli.run(prompting(prompts, ""), "queues", "--url", open, "--user", "sa",
                "--password-prompt");
        assertEquals(0, r.code(), r::toString);
        assertEquals(1, prompts.get());
        Cli.Result noTerminal = Cli.run("queues", "--url", open, "--password-prompt");
        assertEquals(ExitCode.USAGE, noTerminal.code(), noTerminal::toString);
    }

    private static CliEnv prompting(AtomicInteger prompts, String answer) {
        return new CliEnv() {
            @Override
            public String getenv(String name) {
                return null;
            }

            @Override
            public boolean interactive() {
                return true;
            }

            @Override
            public char[] readPassword(String prompt) {
                prompts.incrementAndGet();
                return answer.toCharArray();
            }
        };
    }

    @Test
    void item8_payloads_from_standard_input_and_files(@TempDir Path dir) throws Exception {
        String url = database("", "");
        String big = "x".repeat(300_000) + "\n";
        Path file = dir.resolve("payload.json");
        Files.writeString(file, "{\"file\": true}");
        CliEnv stdin = CliEnv.of(Map.of(), false, null, big);
        Cli.Result fromStdin = Cli.run(stdin, "work", "enqueue", "mail", "-", "--create", "--url", url);
        assertEquals(0, fromStdin.code(), fromStdin::toString);
        Cli.Result fromFile = Cli.run("work", "enqueue", "mail", "--file", file.toString(), "--url", url);
        assertEquals(0, fromFile.code(), fromFile::toString);
        Cli.Result ring = Cli.run(CliEnv.of(Map.of(), false, null, "from stdin"), "ring", "push", "recent", "g", "-",
                "--capacity", "3", "--url", url);
        assertEquals(0, ring.code(), ring::toString);
        Cli.Result ringFile = Cli.run("ring", "push", "recent", "g", "--file", file.toString(), "--url", url);
        assertEquals(0, ringFile.code(), ringFile::toString);
        Cli.Result both = Cli.run("ring", "push", "recent", "g", "a", "--file", file.toString(), "--url", url);
        assertEquals(ExitCode.USAGE, both.code(), both::toString);
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            WorkQueue mail = rq.workQueue("mail");
            List<String> payloads = mail.claim(10).stream().map(dev.rowqueue.Job::payload).toList();
            assertEquals(List.of(big, "{\"file\": true}"), payloads);
            List<String> entries = rq.ring("recent", 3).oldestFirst("g").stream().map(RingEntry::payload).toList();
            assertEquals(List.of("from stdin", "{\"file\": true}"), entries);
        }
    }

    @Test
    void item9_unique_enqueue_says_whether_it_enqueued_or_found_the_holder() throws Exception {
        String url = database("", "");
        Cli.Result first = Cli.run("work", "enqueue", "mail", "a", "--key", "k1", "--unique", "--create",
                "--url", url);
        assertEquals(0, first.code(), first::toString);
        assertTrue(first.out().startsWith("enqueued job 1 "), first.out());
        Cli.Result second = Cli.run("work", "enqueue", "mail", "b", "--key", "k1", "--unique", "--url", url);
        assertEquals(0, second.code(), second::toString);
        assertTrue(second.out().startsWith("held: job 1 "), second.out());
        Cli.Result other = Cli.run("work", "enqueue", "mail", "c", "--unique-key", "k2", "--url", url);
        assertTrue(other.out().startsWith("enqueued job 2 "), other.out());
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            assertEquals(2, rq.workQueue("mail").stats().total());
        }
    }

    @Test
    void item10_exit_codes() throws Exception {
        Cli.Result none = Cli.run();
        assertEquals(ExitCode.USAGE, none.code(), none::toString);
        assertTrue(none.err().contains("Usage:"), none.err());
        for (String group : List.of("work", "ring", "counter")) {
            Cli.Result r = Cli.run(group);
            assertEquals(ExitCode.USAGE, r.code(), r::toString);
            assertTrue(r.err().contains("Usage: rowqueue " + group), r.err());
        }
        String url = database("", "");
        Cli.Result limit = Cli.run("work", "stats", "mail", "--limit", "5", "--url", url);
        assertEquals(ExitCode.USAGE, limit.code(), limit::toString);
        assertTrue(limit.err().contains("--by-key"), limit.err());
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, null, null)).build()) {
            Counters c = rq.counters("sales");
            c.set("k", Long.MAX_VALUE);
        }
        Cli.Result overflow = Cli.run("counter", "incr", "sales", "k", "--url", url);
        assertEquals(ExitCode.OVERFLOW, overflow.code(), overflow::toString);
        assertEquals(5, ExitCode.OVERFLOW);
    }
}
