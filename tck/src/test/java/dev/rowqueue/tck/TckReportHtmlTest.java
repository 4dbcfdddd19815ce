package dev.rowqueue.tck;

import dev.rowqueue.Capability;
import dev.rowqueue.DatabaseInfo;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TckReportHtmlTest {

    private static TckReportListener.Report report(TckReportListener.Status second) {
        DatabaseInfo db = new DatabaseInfo("H2", "2.5.252", "H2 JDBC Driver 2.5.252", "portable",
                Set.of(Capability.SKIP_LOCKED), 1000, "portable on H2 (keys bytes in VARBINARY(601) | probed)");
        return new TckReportListener.Report("SomeTck", new TckReportListener.Target("H2 <in memory>", db), List.of(
                new TckReportListener.Outcome("ring queues", "pushes keep order", TckReportListener.Status.PASSED,
                        "", 12),
                new TckReportListener.Outcome("work queues", "a claim leases", second,
                        "expected <1> but was <2> & \"more\"", 7)), Instant.parse("2026-01-02T03:04:05Z"));
    }

    @Test
    void the_html_page_is_self_contained_and_escapes_every_text() {
        String html = report(TckReportListener.Status.FAILED).html();
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("<style>"), "styles are inline");
        assertFalse(html.contains("<script"), "no script");
        assertFalse(html.contains("src=") || html.contains("href="), "no external resource");
        assertTrue(html.contains("H2 &lt;in memory&gt;"));
        assertTrue(html.contains("expected &lt;1&gt; but was &lt;2&gt; &amp; &quot;more&quot;"));
        assertFalse(html.contains("<in memory>"));
        assertTrue(html.contains("<span class=\"verdict FAILED\">FAILED</span> 1 passed, 1 failed"));
        assertTrue(html.contains("<h2>work queues</h2>"));
        assertTrue(html.contains("2026-01-02T03:04:05Z"));
        assertTrue(html.contains("<th>Dialect settings</th><td>portable on H2 (keys bytes in VARBINARY(601) | probed)"),
                "what the dialect found, for a vendor reading a failure");
    }

    @Test
    void the_markdown_and_json_reports_say_what_the_dialect_found() {
        TckReportListener.Report r = report(TckReportListener.Status.PASSED);
        assertTrue(r.markdown().contains("| Dialect settings | portable on H2 (keys bytes in VARBINARY(601) \\| probed) |"),
                r.markdown());
        assertTrue(r.json().contains("\"dialectSettings\": \"portable on H2 (keys bytes in VARBINARY(601) | probed)\""),
                r.json());
    }

    @Test
    void the_verdict_is_passed_only_when_nothing_failed_or_was_left_out() {
        assertEquals("FAILED", report(TckReportListener.Status.FAILED).verdict());
        assertEquals("INCOMPLETE", report(TckReportListener.Status.NOT_RUN).verdict());
        assertEquals("PASSED", report(TckReportListener.Status.SKIPPED).verdict());
        assertTrue(report(TckReportListener.Status.PASSED).html().contains("verdict PASSED"));
    }
}
