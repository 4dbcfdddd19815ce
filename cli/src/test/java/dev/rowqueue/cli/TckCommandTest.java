package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TckCommandTest {

    @Test
    void runs_every_contract_against_a_jdbc_url_and_writes_markdown_json_and_html(@TempDir Path out)
            throws Exception {
        // a plain in-memory URL: the database lives as long as one connection is open, and the kit holds one
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:cli_tck", "--user", "sa",
                "--name", "H2 via the command line", "--out", out.toString());
        assertEquals(0, r.code(), r::toString);
        String verdict = r.out().lines().filter(l -> l.startsWith("PASSED")).findFirst().orElseThrow(() -> new AssertionError(r));
        assertTrue(verdict.contains("H2 via the command line"), verdict);
        assertTrue(verdict.matches(".* \\d+ passed, 0 failed, \\d+ skipped \\(optional\\), 0 not run"), verdict);
        assertFalse(r.out().contains("rowqueue TCK: "), "the listener leaves the verdict line to the command");

        String html = Files.readString(out.resolve("ConfiguredTck.html"));
        assertTrue(html.contains("<span class=\"verdict PASSED\">PASSED</span>"), html);
        assertTrue(html.contains("bananas evict apples from the five fruit queue"), "every contract");
        assertTrue(html.contains("concurrency"), "every contract");
        String json = Files.readString(out.resolve("ConfiguredTck.json"));
        assertTrue(json.contains("\"verdict\": \"PASSED\""), json);
        assertTrue(json.contains("\"dialect\": \"h2\""), json);
        assertTrue(Files.readString(out.resolve("ConfiguredTck.md")).contains("**Verdict: PASSED**"));
        assertTrue(Files.readString(out.resolve("summary.txt")).contains("PASSED"));
        assertTrue(r.out().contains(out.resolve("ConfiguredTck.html").toString()), "the report's path is printed");
    }

    @Test
    void a_database_the_kit_cannot_use_is_not_a_pass(@TempDir Path out) throws Exception {
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:cli_tck_bad;DB_CLOSE_DELAY=-1", "--dialect-option",
                "no.such.option=1", "--out", out.toString());
        assertEquals(ExitCode.FAILED, r.code(), r::toString);
        assertTrue(r.out().contains("NOT RUN"), r.out());
        assertTrue(Files.readString(out.resolve("ConfiguredTck.json")).contains("\"verdict\": \"NOT RUN\""));
    }

    @Test
    void a_database_each_connection_has_its_own_copy_of_is_refused_before_the_kit_starts(@TempDir Path out) {
        // H2's unnamed in-memory database is private to the connection that opens it
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:", "--out", out.toString());
        assertEquals(ExitCode.DATABASE, r.code(), r::toString);
        assertTrue(r.err().contains("refused jdbc:h2:mem: before running the kit: the connections of this data source"
                + " do not share one database: a table created on one connection (tck_"), r.err());
        assertTrue(r.err().contains("is not visible from a second one"), r.err());
        assertTrue(r.err().contains("Give a URL that names a database shared between connections"), r.err());
        assertFalse(r.out().contains("Running the rowqueue TCK"), r.out());
        assertFalse(Files.exists(out.resolve("ConfiguredTck.json")), "no contract ran, no report");
    }

    @Test
    void a_database_whose_sessions_are_read_only_is_refused_before_the_kit_starts(@TempDir Path out)
            throws Exception {
        String file = out.resolve("ro").toAbsolutePath().toString().replace('\\', '/');
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:h2:file:" + file, "sa", "")) {
            c.createStatement().execute("CREATE TABLE existing (id INT PRIMARY KEY)"); // the database exists
        }
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:file:" + file + ";ACCESS_MODE_DATA=r", "--user", "sa",
                "--out", out.resolve("report").toString());
        assertEquals(ExitCode.DATABASE, r.code(), r::toString);
        assertTrue(r.err().contains("before running the kit: the session has read-only = 'true'"), r.err());
        assertFalse(r.out().contains("Running the rowqueue TCK"), r.out());
    }

    @Test
    void an_unknown_dialect_is_bad_usage_before_the_kit_starts(@TempDir Path out) {
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:cli_tck_dialect", "--dialect", "sybase", "--out",
                out.toString());
        assertEquals(ExitCode.USAGE, r.code(), r::toString);
        assertTrue(r.err().matches("(?s).*no dialect named 'sybase'; known: (.+, )?h2, (.+, )?portable\\n"), r.err());
    }

    @Test
    void a_url_no_driver_takes_is_a_database_error_naming_driver_jar(@TempDir Path out) {
        Cli.Result r = Cli.run("tck", "--url", "jdbc:oracle:thin:scott/tiger@//db:1521/FREEPDB1", "--out",
                out.toString());
        assertEquals(ExitCode.DATABASE, r.code(), r::toString);
        assertTrue(r.err().contains("no JDBC driver takes jdbc:oracle:thin:@//db:1521/FREEPDB1"), r.err());
        assertTrue(r.err().contains("--driver-jar PATH"), r.err());
        assertFalse(r.err().contains("tiger"), "credentials in the URL are not shown");
    }
}
