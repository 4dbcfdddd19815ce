package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TerminalTest {

    private static Terminal terminal(StringWriter err, Map<String, String> env, boolean interactive) {
        return new Terminal(new PrintWriter(new StringWriter()), new PrintWriter(err, true),
                CliEnv.of(env, interactive, null), Terminal.ColorMode.AUTO);
    }

    @Test
    void progress_bars_are_drawn_only_on_an_interactive_terminal_that_is_not_dumb() {
        StringWriter err = new StringWriter();
        try (Terminal.ProgressBar bar = terminal(err, Map.of("TERM", "xterm"), true).progress("copy", 10)) {
            bar.update(10, "fruit");
        }
        assertTrue(err.toString().contains("copy [########################] 100% 10/10 fruit"), err.toString());

        for (Map<String, String> env : java.util.List.of(Map.of("TERM", "dumb"), Map.<String, String>of())) {
            StringWriter none = new StringWriter();
            try (Terminal.ProgressBar bar = terminal(none, env, true).progress("copy", 10)) {
                bar.update(10, "fruit");
            }
            assertEquals("", none.toString(), "no bar with " + env);
        }
        StringWriter piped = new StringWriter();
        try (Terminal.ProgressBar bar = terminal(piped, Map.of("TERM", "xterm"), false).progress("copy", 10)) {
            bar.update(5, "fruit");
        }
        assertEquals("", piped.toString(), "no bar when output is not a terminal");
    }

    @Test
    void no_color_turns_colour_off_but_keeps_the_progress_bar() {
        Terminal t = terminal(new StringWriter(), Map.of("TERM", "xterm", "NO_COLOR", "yes"), true);
        assertFalse(t.colour());
        assertTrue(t.progressBars());
        assertEquals("PASSED", t.verdict("PASSED"));
        Terminal empty = terminal(new StringWriter(), Map.of("TERM", "xterm", "NO_COLOR", ""), true);
        assertTrue(empty.colour(), "an empty NO_COLOR does not count");
    }

    @Test
    void tables_align_numbers_right_and_escape_control_characters() {
        String t = new Table("id", "payload").row(7L, "a\nb").row(12L, null).render(null);
        assertEquals("""
                +----+---------+
                | id | payload |
                +----+---------+
                |  7 | a\\nb    |
                | 12 | NULL    |
                +----+---------+
                """, t);
    }

    @Test
    void styled_cells_keep_the_columns_aligned() {
        Terminal colour = new Terminal(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
                CliEnv.of(Map.of(), false, null), Terminal.ColorMode.ALWAYS);
        String t = new Table("result", "n").row(new Table.Styled("OK", colour::green), 1L)
                .row(new Table.Styled("MISMATCH", colour::red), 22L).render(null);
        assertTrue(t.contains("| \u001b[1;32mOK\u001b[0m       |  1 |"), t);
        assertTrue(t.contains("| \u001b[1;31mMISMATCH\u001b[0m | 22 |"), t);
    }
}
