package dev.rowqueue.cli;

import picocli.CommandLine;

/**
 * A command that only groups subcommands (the root, {@code ring}, {@code work}, {@code counter}): without a
 * subcommand, it prints its usage on standard error and exits with {@link ExitCode#USAGE}.
 */
abstract class GroupCommand implements java.util.concurrent.Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine line = spec.commandLine();
        line.getErr().println(spec.qualifiedName() + ": give a command");
        line.usage(line.getErr());
        return ExitCode.USAGE;
    }
}
