package dev.rowqueue.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.function.Consumer;

/** Runs the command line's entry point in this JVM, capturing standard output, standard error and the exit code. */
final class Cli {

    /**
     * @param code the exit code
     * @param out  standard output
     * @param err  standard error
     */
    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Cli() {
    }

    /**
     * Runs without a terminal and with an empty environment.
     *
     * @param args the arguments
     * @return what happened
     */
    static Result run(String... args) {
        return run(CliEnv.of(Map.of(), false, null), args);
    }

    /**
     * @param env  the environment
     * @param args the arguments
     * @return what happened
     */
    static Result run(CliEnv env, String... args) {
        return run(env, cl -> { }, args);
    }

    /**
     * @param env       the environment
     * @param configure adjusts the command line before it runs (e.g. to set a test hook on a subcommand)
     * @param args      the arguments
     * @return what happened
     */
    static Result run(CliEnv env, Consumer<CommandLine> configure, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = RowQueueCli.commandLine(env, new PrintWriter(out, true), new PrintWriter(err, true));
        configure.accept(cl);
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
