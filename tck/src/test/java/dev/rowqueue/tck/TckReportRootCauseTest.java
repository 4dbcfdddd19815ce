package dev.rowqueue.tck;

import dev.rowqueue.Capability;
import dev.rowqueue.DatabaseInfo;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.SchemaException;
import dev.rowqueue.tck.TckReportListener.Outcome;
import dev.rowqueue.tck.TckReportListener.Report;
import dev.rowqueue.tck.TckReportListener.Status;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TckReportRootCauseTest {

    private static final String NO_TABLE = "SQLiteException: [SQLITE_ERROR] SQL error or missing database (no such"
            + " table: main.%s) [SQLState null, vendor code 1]";

    private static Report report(List<Outcome> outcomes) {
        DatabaseInfo db = new DatabaseInfo("SQLite", "3.50.3", "SQLite JDBC", "portable", Set.of(Capability.SKIP_LOCKED),
                4000);
        return new Report("SomeTck", new TckReportListener.Target("SQLite file", db), outcomes,
                Instant.parse("2026-01-02T03:04:05Z"));
    }

    private static Outcome failed(String contract, String rule, String cause) {
        return new Outcome(contract, rule, Status.FAILED, "the rule's own message", 5, cause);
    }

    /** Five rules failing on one missing table (five queue names), two on one assertion, two on two H2 errors. */
    private static List<Outcome> failures() {
        List<Outcome> list = new ArrayList<>();
        list.add(new Outcome("ring queues", "pushes keep order", Status.PASSED, "", 3));
        String[] names = {"tck_ab12cd34", "tck_zz99yy88", "TCK_K3X9Q2AB", "tck_00000000", "tck_q1w2e3r4"};
        for (int i = 0; i < names.length; i++) {
            list.add(failed("work queues", "work rule " + i, String.format(NO_TABLE, names[i])));
        }
        list.add(failed("concurrency", "many claims", "AssertionFailedError: every job once ==> expected: <800> but"
                + " was: <799>"));
        list.add(failed("concurrency", "many pushes", "AssertionFailedError: every job once ==> expected: <8> but"
                + " was: <7>"));
        list.add(failed("schema", "missing", "JdbcSQLSyntaxErrorException: Table \"TCK_AB12CD34\" not found; SQL"
                + " statement: [SQLState 42S02, vendor code 42102]"));
        list.add(failed("schema", "twice", "JdbcSQLSyntaxErrorException: Table \"TCK_AB12CD34\" already exists; SQL"
                + " statement: [SQLState 42S01, vendor code 42101]"));
        list.add(new Outcome("rotation", "not started", Status.NOT_RUN, "no Docker", 0));
        return list;
    }

    @Test
    void equal_errors_with_different_queue_names_and_numbers_are_one_root_cause() {
        List<Report.RootCause> causes = report(failures()).rootCauses();
        assertEquals(4, causes.size(), causes::toString);

        Report.RootCause first = causes.get(0);
        assertEquals(String.format(NO_TABLE, "<queue>"), first.cause());
        assertEquals(5, first.outcomes().size());
        assertEquals("work rule 0, work rule 1, work rule 2 +2 more", first.rules());

        Report.RootCause second = causes.get(1);
        assertEquals("AssertionFailedError: every job once ==> expected: <#> but was: <#>", second.cause());
        assertEquals("many claims, many pushes", second.rules());
    }

    @Test
    void errors_that_differ_in_sqlstate_or_vendor_code_stay_apart() {
        List<Report.RootCause> causes = report(failures()).rootCauses();
        assertEquals("JdbcSQLSyntaxErrorException: Table \"<queue>\" not found; SQL statement: [SQLState 42S02,"
                + " vendor code 42102]", causes.get(2).cause());
        assertEquals("JdbcSQLSyntaxErrorException: Table \"<queue>\" already exists; SQL statement: [SQLState 42S01,"
                + " vendor code 42101]", causes.get(3).cause());
        assertEquals("ORA-00942: table or view does not exist [SQLState 42000, vendor code 942]",
                Report.normalize("ORA-00942: table or view does not exist [SQLState 42000, vendor code 942]"));
        assertEquals("queue <queue>_head, group # at <queue>.ids",
                Report.normalize("queue tck_ab12cd34_head, group 17 at TCK_AB12CD34.ids"));
    }

    @Test
    void every_report_lists_the_root_causes_above_the_rules() {
        Report r = report(failures());
        List<String> lines = r.rootCauseLines();
        assertEquals("Failures by root cause (9 failed, 4 distinct errors):", lines.get(0));
        assertEquals("  5 x " + String.format(NO_TABLE, "<queue>") + " -- work rule 0, work rule 1, work rule 2 +2"
                + " more", lines.get(1));
        assertEquals(5, lines.size());

        String md = r.markdown();
        int causes = md.indexOf("## Failures by root cause (9 failed, 4 distinct errors)");
        assertTrue(causes > 0, md);
        assertTrue(causes < md.indexOf("## ring queues"), "above the per-rule tables");
        assertTrue(md.contains("| 5 | `" + String.format(NO_TABLE, "<queue>") + "` | work rule 0, work rule 1, work"
                + " rule 2 +2 more |"), md);

        String html = r.html();
        assertTrue(html.indexOf("<table class=\"causes\">") < html.indexOf("<h2>ring queues</h2>"), html);
        assertTrue(html.contains("no such table: main.&lt;queue&gt;"), html);
        assertFalse(html.contains("<queue>"), "escaped");

        String json = r.json();
        assertTrue(json.contains("\"rootCauses\": [\n    {\"cause\": \"" + String.format(NO_TABLE, "<queue>")
                + "\", \"count\": 5, \"rules\": [\"work rule 0\", \"work rule 1\", \"work rule 2\", \"work rule 3\","
                + " \"work rule 4\"]},"), json);
    }

    @Test
    void a_passing_report_has_no_root_cause_section() {
        Report r = report(List.of(new Outcome("ring queues", "pushes keep order", Status.PASSED, "", 3),
                new Outcome("triggers (optional)", "a trigger", Status.SKIPPED, "optional: not declared", 0)));
        assertEquals("PASSED", r.verdict());
        assertTrue(r.rootCauseLines().isEmpty());
        assertFalse(r.markdown().contains("root cause"));
        assertFalse(r.html().contains("root cause"));
        assertFalse(r.json().contains("rootCauses"));
    }

    @Test
    void the_root_cause_is_the_deepest_cause_or_the_ddl_error_behind_a_missing_table() {
        SQLException deepest = new SQLSyntaxErrorException("near \"FETCH\": syntax error", "42000", 1);
        Exception wrapped = new ExecutionException(new RowQueueException("read ring tck_ab12cd34 failed", deepest));
        assertEquals("SQLSyntaxErrorException: near \"FETCH\": syntax error [SQLState 42000, vendor code 1]",
                TckReportListener.rootCause(wrapped));

        SchemaException missing = new SchemaException("table tck_ab12cd34 does not exist",
                new SQLException("no such table: tck_ab12cd34"));
        missing.addSuppressed(new SQLException("near \"AS\": syntax error\nCREATE TABLE ...", null, 1));
        assertEquals("SQLException: near \"AS\": syntax error [SQLState null, vendor code 1]",
                TckReportListener.rootCause(new ExecutionException(missing)));

        assertEquals("AssertionError: expected 8", TckReportListener.rootCause(new AssertionError("expected 8")));
    }
}
