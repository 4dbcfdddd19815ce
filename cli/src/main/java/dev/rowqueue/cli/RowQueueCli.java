package dev.rowqueue.cli;

import dev.rowqueue.CounterOverflowException;
import dev.rowqueue.QueueConflictException;
import dev.rowqueue.RowQueueException;
import dev.rowqueue.SchemaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;

/**
 * The {@code rowqueue} command line: {@code java -jar rowqueue.jar <command> ...}. See docs/cli.md.
 */
@Command(name = "rowqueue", mixinStandardHelpOptions = true, versionProvider = RowQueueCli.Version.class,
        description = "Ring queues, work queues and counters on ordinary SQL tables: try them, run the compatibility"
                + " kit against a database, print DDL, look into queues, serve the operator console, and move queues between"
                + " databases.",
        subcommands = {DemoCommand.class, TckCommand.class, SchemaCommand.class, QueuesCommand.class,
                RingCommand.class, WorkCommand.class, CounterCommand.class, ScheduleCommand.class, ConsoleCommand.class,
                MigrateCommand.class, DialectsCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done; the TCK verdict is PASSED; the migration is verified",
            "1:the TCK verdict is not PASSED; a migration did not verify or a queue could not be copied",
            "2:bad usage: unknown command or option, bad value, unknown dialect, invalid queue name",
            "3:the database could not be used: no driver for the URL, no connection, an SQL error",
            "4:not found: no such queue (or one of another kind), no dead job with that id",
            "5:a counter would overflow: nothing was changed"},
        footer = {"%nPasswords are never options: set ROWQUEUE_PASSWORD (migrate: ROWQUEUE_FROM_PASSWORD,"
                + " ROWQUEUE_TO_PASSWORD). On a terminal, it is asked for when the database refuses the connection"
                + " without one, or first with --password-prompt."})
public final class RowQueueCli extends GroupCommand {

    /** Environment variable holding the database password. */
    public static final String PASSWORD_ENV = "ROWQUEUE_PASSWORD";

    private final CliEnv env;

    @Option(names = "--color", paramLabel = "WHEN", defaultValue = "auto", scope = CommandLine.ScopeType.INHERIT,
            description = "auto (default: on an interactive terminal whose TERM is not dumb, unless NO_COLOR is set),"
                    + " always or never")
    Terminal.ColorMode color = Terminal.ColorMode.AUTO;

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "log at INFO, also what JDBC drivers and pools log (by default only their errors show)")
    boolean verbose;

    /**
     * @param env the environment (variables, terminal, password prompt)
     */
    public RowQueueCli(CliEnv env) {
        this.env = env;
    }

    /** @return the environment */
    CliEnv env() {
        return env;
    }

    /**
     * @param commandLine the command being run
     * @return a terminal writing to that command's streams
     */
    Terminal terminal(CommandLine commandLine) {
        return new Terminal(commandLine.getOut(), commandLine.getErr(), env, color);
    }

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        configureLogging(args);
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = run(args, CliEnv.system(), out, err);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** The JDK logger of drivers that log through java.util.logging (PostgreSQL's), held so its level stays set. */
    private static final java.util.logging.Logger JUL_ROOT = java.util.logging.Logger.getLogger("");

    /**
     * Sets log levels before the first logger is made (SLF4J simple reads them once): rowqueue's own loggers at WARN,
     * everything else (JDBC drivers, connection pools, Jetty) at ERROR, so that a driver's warnings about errors
     * rowqueue expects and handles (a missing catalog table, a duplicate key) do not look like failures. With
     * {@code --verbose}, everything at INFO. A level given with {@code -Dorg.slf4j.simpleLogger.defaultLogLevel} wins.
     *
     * @param args the command line
     * @return the system properties set
     */
    static java.util.Map<String, String> configureLogging(String[] args) {
        java.util.Map<String, String> set = new java.util.LinkedHashMap<>();
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") != null) {
            return set;
        }
        boolean verbose = java.util.Arrays.asList(args).contains("--verbose");
        set.put("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "error");
        if (!verbose) {
            set.put("org.slf4j.simpleLogger.log.dev.rowqueue", "warn");
            JUL_ROOT.setLevel(java.util.logging.Level.SEVERE);
        }
        set.forEach((k, v) -> {
            if (System.getProperty(k) == null) {
                System.setProperty(k, v);
            }
        });
        return set;
    }

    /**
     * Runs the command line without exiting: the entry point tests call.
     *
     * @param args the arguments
     * @param env  the environment
     * @param out  standard output
     * @param err  standard error
     * @return the exit code (see {@link ExitCode})
     */
    public static int run(String[] args, CliEnv env, PrintWriter out, PrintWriter err) {
        return commandLine(env, out, err).execute(args);
    }

    /**
     * @param env the environment
     * @param out standard output
     * @param err standard error
     * @return the configured picocli command line
     */
    public static CommandLine commandLine(CliEnv env, PrintWriter out, PrintWriter err) {
        RowQueueCli root = new RowQueueCli(env);
        CommandLine cl = new CommandLine(root);
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        boolean ansi = new Terminal(out, err, env, Terminal.ColorMode.AUTO).colour();
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(ansi ? CommandLine.Help.Ansi.ON
                : CommandLine.Help.Ansi.OFF));
        cl.setExecutionExceptionHandler((ex, line, parseResult) -> root.handle(ex, line));
        return cl;
    }

    private int handle(Exception ex, CommandLine line) {
        Terminal t = terminal(line);
        int code;
        String message;
        if (ex instanceof CliException c) {
            code = c.exitCode();
            message = c.getMessage();
        } else if (ex instanceof QueueConflictException || ex instanceof IllegalArgumentException) {
            code = ExitCode.USAGE;
            message = ex.getMessage();
        } else if (ex instanceof CounterOverflowException) {
            code = ExitCode.OVERFLOW;
            message = ex.getMessage();
        } else if (ex instanceof SchemaException) {
            code = ExitCode.NOT_FOUND;
            message = ex.getMessage();
        } else if (ex instanceof RowQueueException || ex instanceof SQLException) {
            code = ExitCode.DATABASE;
            message = ex.getMessage();
        } else {
            StringWriter trace = new StringWriter();
            ex.printStackTrace(new PrintWriter(trace));
            t.err().println(trace);
            code = ExitCode.FAILED;
            message = "unexpected " + ex;
        }
        t.err().println(t.red("rowqueue: " + line.getCommandName() + ": ") + message);
        t.err().flush();
        return code;
    }

    /** Reads the version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = RowQueueCli.class.getPackage().getImplementationVersion();
            return new String[] {"rowqueue " + (v == null ? "(development build)" : v),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
