package dev.rowqueue.cli;

import dev.rowqueue.spi.DialectProviders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every {@code rowqueue ...} and {@code java -jar rowqueue.jar ...} command of README.md and docs/*.md is parsed by
 * the command line's own parser (an unknown command, option or dialect name fails), and the ones that need no server
 * run here, in the order written, on a temporary H2 file database per document.
 *
 * <p>What runs: {@code demo}, {@code schema}, {@code dialects} without a driver jar, and the commands whose
 * databases are H2 URLs or the placeholder {@code --url ...}. In those, {@code --url ...} and {@code jdbc:h2:file:}
 * paths point into a temporary directory, {@code --user sa} is added where a command names no user (the temporary
 * database belongs to sa), {@code --file NAME} names a file of the temporary directory holding a JSON payload, and
 * {@code < FILE} gives that payload on standard input; a pipe after the command is left out (DocsOnServersTest pipes
 * the MariaDB DDL into the real client). What is only parsed: {@code tck} (the whole kit, over a minute;
 * TckCommandTest and JarIT run it), {@code console} (serves until stopped; ConsoleCommandTest runs it), commands on
 * server URLs, and {@code --driver-jar} paths that do not exist here.
 */
class DocsThatRunTest {

    /** Commands whose exit code 4 (not found) is what the example shows: ids of dead jobs that are not there. */
    private static final Set<String> NOT_FOUND_AS_WRITTEN = Set.of("work revive");

    @Test
    void every_command_parses_and_names_known_dialects() {
        List<String> failures = new ArrayList<>();
        int count = 0;
        for (Path file : Docs.files()) {
            for (Docs.Command c : Docs.commands(file)) {
                count++;
                try {
                    CommandLine.ParseResult parsed = RowQueueCli.commandLine(CliEnv.of(Map.of(), false, null),
                            new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()))
                            .parseArgs(c.args().toArray(String[]::new));
                    checkDialects(parsed);
                } catch (CommandLine.ParameterException | IllegalArgumentException e) {
                    failures.add(c + "\n    -> " + e.getMessage());
                }
            }
        }
        assertTrue(count >= 40, "found only " + count + " commands; did the extraction break?");
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + count + " documented commands do not parse:\n" + String.join("\n", failures));
        }
    }

    private static void checkDialects(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            for (String option : List.of("--dialect", "--from-dialect", "--to-dialect")) {
                if (p.hasMatchedOption(option)) {
                    String name = p.matchedOptionValue(option, (String) null);
                    DialectProviders.named(DialectName.canonical(name)); // IllegalArgumentException for an unknown one
                }
            }
        }
    }

    @Test
    void commands_that_need_no_server_run(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("payload.json"), "{\"doc\": true}");
        Files.writeString(dir.resolve("invoice-8.json"), "{\"id\": 8}");
        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (Path file : Docs.files()) {
            Path db = dir.resolve(file.getFileName().toString().replace(".md", ""));
            for (Docs.Command c : Docs.commands(file)) {
                List<String> args = runnable(c, db, dir);
                if (args == null) {
                    continue;
                }
                ran++;
                CliEnv env = CliEnv.of(Map.of(), false, null, c.stdin() ? "{\"stdin\": true}" : "");
                Cli.Result r = Cli.run(env, args.toArray(String[]::new));
                String command = args.isEmpty() ? "" : args.get(0) + (args.size() > 1 ? " " + args.get(1) : "");
                boolean ok = r.code() == ExitCode.OK
                        || (r.code() == ExitCode.NOT_FOUND && NOT_FOUND_AS_WRITTEN.contains(command));
                if (!ok) {
                    failures.add(c + "\n    ran " + args + "\n    " + r.toString().replace("\n", "\n    "));
                }
            }
        }
        assertTrue(ran >= 25, "ran only " + ran + " commands");
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + ran + " documented commands failed:\n" + String.join("\n", failures));
        }
        System.out.println("DocsThatRunTest: ran " + ran + " documented commands without a server");
    }

    /** @return the arguments to run, or {@code null} for a command that is only parsed */
    private static List<String> runnable(Docs.Command c, Path db, Path dir) {
        List<String> a = c.args();
        if (a.isEmpty() || Set.of("tck", "console", "--help", "help").contains(a.get(0)) || a.contains("--help")) {
            return null;
        }
        List<String> out = new ArrayList<>();
        boolean hasUser = a.contains("--user") || a.contains("-u");
        boolean placeholder = false;
        for (int i = 0; i < a.size(); i++) {
            String w = a.get(i);
            if (w.startsWith("jdbc:") && !w.startsWith("jdbc:h2:")) {
                return null; // a server
            }
            if (w.equals("--driver-jar") && !Files.exists(Path.of(a.get(i + 1)))) {
                return null;
            }
            if (w.equals("...") && i > 0 && a.get(i - 1).equals("--url")) {
                placeholder = true;
                out.add("jdbc:h2:file:" + db);
            } else if (w.startsWith("jdbc:h2:file:")) {
                placeholder = true;
                out.add("jdbc:h2:file:" + db.resolveSibling(db.getFileName() + "_"
                        + Path.of(w.substring("jdbc:h2:file:".length())).getFileName()));
            } else if (i > 0 && a.get(i - 1).equals("--file")) {
                out.add(dir.resolve(w).toString());
            } else {
                out.add(w);
            }
        }
        if (placeholder && !hasUser) {
            out.add("--user");
            out.add("sa");
        }
        return out;
    }

    @Test
    void the_extraction_sees_continuations_comments_pipes_and_redirections() {
        List<Docs.Command> cli = Docs.commands(Docs.ROOT.resolve("docs/cli.md"));
        assertTrue(cli.stream().anyMatch(c -> c.args().equals(List.of("schema", "--dialect", "mariadb", "--ring",
                "recent_views", "--capacity", "10")) && "mariadb app".equals(c.pipe())), cli::toString);
        assertTrue(cli.stream().anyMatch(c -> c.stdin() && c.args().contains("-")), cli::toString);
        assertTrue(cli.stream().anyMatch(c -> c.args().get(0).equals("migrate") && c.args().contains("--to-user")),
                cli::toString);
        assertEquals(List.of("a b", "c", "|", "d", "#"), Docs.shellWords("'a b' c | d # e"), "# marks a comment");
    }
}
