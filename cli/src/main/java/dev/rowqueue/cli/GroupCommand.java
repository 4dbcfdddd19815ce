package dev.rowqueue.cli;

import picocli.CommandLine;

/** A command that only groups subcommands ({@code ring}, {@code work}, {@code counter}): alone, it prints its usage. */
abstract class GroupCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
