package dev.rowqueue.cli;

import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.DriverManagerDataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The documented commands that need servers, against the local ones: MariaDB at 127.0.0.1:3306 (user root, no
 * password) and PostgreSQL at 127.0.0.1:5432 (user postgres, no password). Each test makes a database of its own and
 * drops it; a test whose server (or the {@code mariadb} client) is absent is skipped, saying which.
 *
 * <ul>
 *   <li>Every documented {@code schema} command for {@code mysql} or {@code mariadb} (aliases included) prints its
 *       DDL, which is piped into the real {@code mariadb} client, as docs/cli.md shows: it must apply cleanly, and
 *       twice (a rerun of a migration script).</li>
 *   <li>The README's migrate example runs with the options as written ({@code --user rq} for both sides): from a
 *       PostgreSQL database holding a ring, a work queue and counters, to a MariaDB database. Only the hosts and
 *       database names of its URLs are replaced by the local servers' and fresh databases; the user {@code rq} is
 *       created on both servers where missing (no password, rights on the fresh databases only).</li>
 * </ul>
 */
class DocsOnServersTest {

    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/";
    private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/";

    private static boolean reachable(String url, String user) {
        try (Connection c = DriverManager.getConnection(url, user, "")) {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    private static void execute(String url, String user, String... sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private static String mariadbClient() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : List.of("mariadb", "mysql")) {
                File f = new File(dir, name);
                if (f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        return null;
    }

    @Test
    void documented_mariadb_and_mysql_ddl_applies_through_the_mariadb_client() throws Exception {
        String client = mariadbClient();
        Assumptions.assumeTrue(client != null, "no mariadb or mysql client on the PATH");
        Assumptions.assumeTrue(reachable(MARIADB + "mysql", "root"), "no MariaDB server at 127.0.0.1:3306 for root");
        List<Docs.Command> schema = new ArrayList<>();
        for (var file : Docs.files()) {
            for (Docs.Command c : Docs.commands(file)) {
                List<String> a = c.args();
                int d = a.indexOf("--dialect");
                if (!a.isEmpty() && a.get(0).equals("schema") && d > 0
                        && List.of("mysql", "mariadb").contains(DialectName.canonical(a.get(d + 1)).toLowerCase(Locale.ROOT))) {
                    schema.add(c);
                }
            }
        }
        assertTrue(schema.size() >= 2, "documented MariaDB/MySQL schema commands: " + schema);
        String db = "rqdocs_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute(MARIADB + "mysql", "root", "CREATE DATABASE " + db);
        try {
            for (Docs.Command c : schema) {
                Cli.Result r = Cli.run(c.args().toArray(String[]::new));
                assertEquals(0, r.code(), () -> c + "\n" + r);
                for (int run = 1; run <= 2; run++) {
                    Process p = new ProcessBuilder(client, "-h", "127.0.0.1", "-P", "3306", "-u", "root", db)
                            .redirectErrorStream(true).start();
                    p.getOutputStream().write(r.out().getBytes(StandardCharsets.UTF_8));
                    p.getOutputStream().close();
                    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                    int code = p.exitValue();
                    if (code != 0) {
                        fail(c + "\npiped into " + client + " (run " + run + "): exit " + code + "\n" + output
                                + "\n--- the DDL\n" + r.out());
                    }
                }
            }
            try (Connection c = DriverManager.getConnection(MARIADB + db, "root", "");
                 var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM information_schema.TRIGGERS"
                         + " WHERE TRIGGER_SCHEMA = DATABASE()")) {
                assertTrue(rs.next() && rs.getInt(1) >= 1, "the ring's push trigger was created");
            }
        } finally {
            execute(MARIADB + "mysql", "root", "DROP DATABASE " + db);
        }
    }

    @Test
    void the_readme_migrate_example_runs_from_postgresql_to_mariadb() throws Exception {
        Assumptions.assumeTrue(reachable(POSTGRES + "postgres", "postgres"),
                "no PostgreSQL server at 127.0.0.1:5432 for postgres");
        Assumptions.assumeTrue(reachable(MARIADB + "mysql", "root"), "no MariaDB server at 127.0.0.1:3306 for root");
        Docs.Command example = Docs.commands(Docs.ROOT.resolve("README.md")).stream()
                .filter(c -> !c.args().isEmpty() && c.args().get(0).equals("migrate")).findFirst()
                .orElseThrow(() -> new AssertionError("no migrate command in README.md"));
        List<String> args = new ArrayList<>(example.args());
        assertEquals(List.of("migrate", "--from", "jdbc:postgresql://old/app", "--to", "jdbc:mariadb://new/app",
                "--user", "rq"), args, "the README's example changed: adapt this test");
        String db = "rqdocs_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute(POSTGRES + "postgres", "postgres",
                "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rq') THEN CREATE ROLE rq LOGIN;"
                        + " END IF; END$$", "CREATE DATABASE " + db + " OWNER rq");
        execute(MARIADB + "mysql", "root", "CREATE DATABASE " + db,
                "CREATE USER IF NOT EXISTS 'rq'@'%'", "CREATE USER IF NOT EXISTS 'rq'@'localhost'",
                "GRANT ALL ON " + db + ".* TO 'rq'@'%'", "GRANT ALL ON " + db + ".* TO 'rq'@'localhost'");
        try {
            String from = POSTGRES + db;
            String to = MARIADB + db;
            try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(from, "rq", null)).build()) {
                rq.ring("recent_views", 3).pushAll("article-42", List.of("alice", "bob", "carol", "dave"));
                rq.workQueue("outgoing_mail").enqueueAll(List.of("hello", "password reset"),
                        dev.rowqueue.Enqueue.defaults());
                rq.counters("booksales").increment("Bulldozer", 12);
            }
            args.set(2, from);
            args.set(4, to);
            Cli.Result r = Cli.run(CliEnv.of(Map.of(), false, null), args.toArray(String[]::new));
            assertEquals(0, r.code(), r::toString);
            assertTrue(r.out().contains("VERIFIED: 3 queues"), r.out());
            try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(to, "rq", null)).build()) {
                assertEquals(2, rq.workQueue("outgoing_mail").stats().ready());
                assertEquals(12, rq.counters("booksales").get("Bulldozer"));
                assertEquals(3, rq.ring("recent_views", 3).size("article-42"));
            }
        } finally {
            execute(MARIADB + "mysql", "root", "DROP DATABASE IF EXISTS " + db);
            execute(POSTGRES + "postgres", "postgres", "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        }
    }
}
