package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCommandTest {

    private static final Pattern ROW = Pattern.compile("\\|\\s*");

    /** The table rows of the output, with cells separated by single bars: "| 6 | 1 | bananas |" becomes "6|1|bananas". */
    private static String rows(String out) {
        StringBuilder b = new StringBuilder();
        for (String line : out.split("\n")) {
            if (line.startsWith("|")) {
                b.append(ROW.matcher(line.strip()).replaceAll("|").replaceAll("\\s+\\|", "|")).append('\n');
            }
        }
        return b.toString();
    }

    @Test
    void the_demo_prints_the_source_articles_transcripts_as_tables_without_colour_when_not_on_a_terminal() {
        Cli.Result r = Cli.run("demo");
        assertEquals(0, r.code(), r::toString);
        String rows = rows(r.out());
        // "How to implement a queue in SQL": bananas (seq 6) take slot 1, which apples (seq 1) held
        assertTrue(r.out().contains("(Baron Schwartz, \"How to implement a queue in SQL\")"), "headings name articles");
        assertFalse(r.out().contains("seed 00"), "articles are named by title, not by number");
        assertTrue(rows.contains("|1|1|apples|\n|2|2|oranges|\n|3|3|peaches|\n|4|4|cherries|\n|5|0|pears|\n"), rows);
        assertTrue(rows.contains("|2|2|oranges|\n|3|3|peaches|\n|4|4|cherries|\n|5|0|pears|\n|6|1|bananas|\n"), rows);
        // "MySQL Queues, part II — groups of queues": groups f and v; banana wraps onto apple's slot, vegetables stay
        assertTrue(rows.contains("|f|2|2|orange|\n|f|3|3|peach|\n|f|4|4|cherries|\n|f|5|0|pear|\n|f|6|1|banana|\n"
                + "|v|1|1|okra|\n|v|2|2|squash|\n|v|3|3|celery|\n"), rows);
        // "mysql 队列 实现并发读" (concurrent reads): a retried job ends as a dead letter with its last error
        assertTrue(r.out().contains("'crawl example.org' (HTTP 503 Service Unavailable)"), r.out());
        assertTrue(r.out().contains("QueueStats[ready=0, scheduled=0, leased=0, dead=1]"), r.out());
        // "Endless loops": after 5, 10 and 15 died, the batch skips them and 1 follows 20
        assertTrue(rows.contains("|19|Message 19|0|\n|20|Message 20|0|\n|1|Message 1|0|\n|2|Message 2|0|\n"
                + "|3|Message 3|0|\n"), rows);
        assertTrue(rows.contains("|4|Message 4|0|\n|6|Message 6|0|\n"), rows);
        // "Using Single-Row Sequence Generators": you just bought copy 1, then a dozen more
        assertTrue(r.out().contains("booksales.increment(\"Bulldozer\");       // 1"), r.out());
        assertTrue(r.out().contains("booksales.increment(\"Bulldozer\", 12);   // 13"), r.out());
        assertTrue(rows.contains("|Bulldozer|13|"), rows);
        assertFalse(r.out().contains("\u001b["), "no colour without a terminal");
        assertEquals("", r.err());
    }

    @Test
    void colour_only_on_a_capable_terminal_and_never_with_no_color() {
        Cli.Result coloured = Cli.run(CliEnv.of(Map.of("TERM", "xterm-256color"), true, null), "demo");
        assertEquals(0, coloured.code(), coloured::toString);
        assertTrue(coloured.out().contains("\u001b[1m"), "bold headings on a terminal");

        Cli.Result noColor = Cli.run(CliEnv.of(Map.of("TERM", "xterm", "NO_COLOR", "1"), true, null), "demo");
        assertFalse(noColor.out().contains("\u001b["), "NO_COLOR is respected");

        Cli.Result dumb = Cli.run(CliEnv.of(Map.of("TERM", "dumb"), true, null), "demo");
        assertFalse(dumb.out().contains("\u001b["), "a dumb terminal gets plain text");

        Cli.Result never = Cli.run(CliEnv.of(Map.of("TERM", "xterm"), true, null), "--color", "never", "demo");
        assertFalse(never.out().contains("\u001b["), "--color never");

        Cli.Result always = Cli.run("--color=always", "demo");
        assertTrue(always.out().contains("\u001b["), "--color always, even without a terminal");
    }
}
