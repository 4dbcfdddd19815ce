package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rowqueue tck} as a user runs it (the command line's own {@code main} in a JVM of its own, logging configured
 * by it alone) on databases that pass (issue 37, part 4): the console shows the verdict and no warning, what the rules
 * log or print on purpose goes to a log next to the report, which the report names; every file the run writes is
 * named in docs/tck.md; and the counts docs/cli.md shows are today's kit's.
 */
class TckQuietConsoleTest {

    private static final Pattern COUNTS = Pattern.compile("(\\d+) passed, 0 failed, (\\d+) skipped \\(optional\\)");

    private static String tck(Path dir, String url, String... more) throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path cwd = Files.createDirectories(dir.resolve("cwd"));
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), RowQueueCli.class.getName(),
                "tck", "--url", url, "--out", dir.resolve("report").toString()));
        command.addAll(List.of(more));
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
        String console = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(20, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), () -> console + failuresLogged(dir.resolve("report").resolve(TckCommand.LOG)));
        return console;
    }

    /** The stack traces of the failed rules, from the run's log: the evidence a failure needs. */
    private static String failuresLogged(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith(dev.rowqueue.tck.TckReportListener.FAILED_MARK)) {
                    lines.subList(i, Math.min(lines.size(), i + 80)).forEach(l -> b.append('\n').append(l));
                }
            }
            return b.toString();
        } catch (java.io.IOException e) {
            return "\n(no log: " + e + ")";
        }
    }

    private static void quiet(String console, Path out) throws Exception {
        assertTrue(console.lines().anyMatch(l -> l.startsWith("PASSED")), console);
        assertTrue(console.lines().noneMatch(l -> l.contains("WARN")), "no WARN line on the console:\n" + console);
        assertFalse(console.contains("cancel racing claim"), console);

        Path log = out.resolve(TckCommand.LOG);
        assertTrue(console.contains(log.toAbsolutePath().toString()), "the console names the log:\n" + console);
        String logged = Files.readString(log);
        assertTrue(logged.lines().anyMatch(l -> l.contains(" WARN dev.rowqueue.")), "the warnings are in the log:\n"
                + logged);
        assertTrue(logged.contains("cancel racing claim: the cancel won "), logged);
        assertTrue(Files.readString(out.resolve("ConfiguredTck.md")).contains("| Log | [" + TckCommand.LOG + "]("),
                "the report names the log");
        assertTrue(Files.readString(out.resolve("ConfiguredTck.json")).contains("\"log\": \"" + TckCommand.LOG + "\""));
        assertTrue(Files.readString(out.resolve("ConfiguredTck.html")).contains("<a href=\"" + TckCommand.LOG + "\">"));
    }

    /** Every file under {@code dir} (report, working and temporary directories) is named in docs/tck.md's list. */
    private static void documented(Path dir) throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "tck.md"));
        int start = doc.indexOf("### Files the kit writes");
        assertTrue(start >= 0, "docs/tck.md has a section 'Files the kit writes'");
        int end = doc.indexOf("\n#", start + 4);
        String section = doc.substring(start, end < 0 ? doc.length() : end);
        List<Path> written;
        try (Stream<Path> files = Files.walk(dir)) {
            written = files.filter(Files::isRegularFile).toList();
        }
        assertFalse(written.isEmpty());
        for (Path f : written) {
            String name = f.getFileName().toString();
            assertTrue(section.contains("`" + name + "`") || section.contains("`" + name.replaceAll("\\d+", "<number>")
                    + "`"), "the kit wrote " + dir.relativize(f) + ", which docs/tck.md's list of files does not name");
        }
    }

    @Test
    void h2_portable_as_docs_cli_shows_it(@TempDir Path dir) throws Exception {
        String console = tck(dir, "jdbc:h2:mem:x", "--dialect", "portable");
        Path out = dir.resolve("report");
        quiet(console, out);
        documented(dir);

        // docs/cli.md shows this very command's output: its counts are today's kit's
        String doc = Files.readString(Path.of("..", "docs", "cli.md"));
        Matcher shown = Pattern.compile("PASSED     jdbc:h2:mem:x — H2 [^\\n]*, dialect portable: " + COUNTS.pattern())
                .matcher(doc);
        assertTrue(shown.find(), "docs/cli.md shows the output of tck --url jdbc:h2:mem:x --dialect portable");
        Matcher ran = COUNTS.matcher(console.lines().filter(l -> l.startsWith("PASSED")).findFirst().orElseThrow());
        assertTrue(ran.find(), console);
        assertEquals(ran.group(1) + " passed, " + ran.group(2) + " skipped", shown.group(1) + " passed, "
                + shown.group(2) + " skipped", "docs/cli.md's counts of the portable dialect on H2");
    }

    /**
     * SQLite through the kit's HikariCP pool, in rollback-journal mode: a pooled connection's stale schema once made
     * tables created just before intermittently missing (docs/sqlite.md, "Through a connection pool").
     */
    @Test
    void sqlite(@TempDir Path dir) throws Exception {
        Path db = Files.createDirectories(dir.resolve("db")).resolve("kit.db");
        String console = tck(dir, "jdbc:sqlite:" + db);
        quiet(console, dir.resolve("report"));
    }
}
