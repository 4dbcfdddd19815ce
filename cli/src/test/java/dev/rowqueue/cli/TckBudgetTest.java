package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kit never ends without a report: when its time budget ({@code --timeout}) runs out, or it is stopped by
 * SIGTERM, it writes the report of what finished, with every rule not finished marked NOT RUN and why.
 */
class TckBudgetTest {

    private static long notRun(String json) {
        Matcher m = Pattern.compile("\"NOT_RUN\": (\\d+)").matcher(json);
        assertTrue(m.find(), json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void a_time_budget_that_runs_out_writes_the_partial_report_with_the_rules_not_finished_not_run(
            @TempDir Path out) throws Exception {
        // the kit's rules take minutes together (leases of seconds, workers, races): 3 s is never enough
        Cli.Result r = Cli.run("tck", "--url", "jdbc:h2:mem:cli_tck_budget;DB_CLOSE_DELAY=-1", "--timeout", "3s",
                "--out", out.toString());
        assertEquals(ExitCode.FAILED, r.code(), r::toString);
        String json = Files.readString(out.resolve("ConfiguredTck.json"));
        assertNotEquals("PASSED", verdict(json), json);
        assertTrue(notRun(json) > 0, json);
        assertTrue(json.contains("not finished: the run's time budget (--timeout 3s) ran out"), json);
        assertTrue(Files.readString(out.resolve("ConfiguredTck.md")).contains("| NOT RUN |"));
        assertTrue(r.out().contains("not run"), r.out());
    }

    private static String verdict(String json) {
        Matcher m = Pattern.compile("\"verdict\": \"([A-Z ]+)\"").matcher(json);
        assertTrue(m.find(), json);
        return m.group(1);
    }

    @Test
    void sigterm_writes_the_partial_report(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("report");
        // a database both processes reach: this test sees the kit's tables appear, the kit has started its rules
        String url = "jdbc:h2:" + dir.resolve("db").toAbsolutePath() + ";AUTO_SERVER=TRUE";
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), RowQueueCli.class.getName(), "tck",
                "--url", url, "--user", "sa", "--out", out.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                }
            } catch (java.io.IOException ignored) {
                // the process ended
            }
        });
        reader.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!kitTablesExist(url, output)) {
                assertTrue(p.isAlive(), () -> "the kit ended early: " + output);
                assertTrue(System.nanoTime() < deadline, () -> "the kit created no table: " + output);
                Thread.sleep(100);
            }
            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the kit did not stop on SIGTERM");
        } finally {
            p.destroyForcibly();
        }
        reader.join(10_000);
        Path json = out.resolve("ConfiguredTck.json");
        assertTrue(Files.exists(json), () -> "no report after SIGTERM: " + output);
        String report = Files.readString(json);
        assertTrue(notRun(report) > 0, report);
        assertTrue(report.contains("not finished: the run was stopped by a signal (SIGINT or SIGTERM)"), report);
    }

    /** @return whether the kit's own tables exist yet, once the command said it is running the kit */
    private static boolean kitTablesExist(String url, StringBuilder output) throws Exception {
        synchronized (output) {
            if (!output.toString().contains("Running the rowqueue TCK")) {
                return false;
            }
        }
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES"
                     + " WHERE UPPER(TABLE_NAME) LIKE 'TCK%'")) {
            rs.next();
            return rs.getInt(1) > 0;
        }
    }
}
