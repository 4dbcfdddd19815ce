package dev.rowqueue.cli;

import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** What every command shares: the root's environment, a terminal on its streams, and driver jars. */
abstract class BaseCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private Terminal terminal;

    /** @return the root command */
    RowQueueCli root() {
        return (RowQueueCli) spec.root().userObject();
    }

    /** @return the environment */
    CliEnv env() {
        return root().env();
    }

    /** @return the terminal of this command */
    Terminal terminal() {
        if (terminal == null) {
            terminal = root().terminal(spec.commandLine());
        }
        return terminal;
    }

    @Override
    public final Integer call() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try {
            return run();
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /**
     * Makes JDBC drivers and dialect modules in these jars usable for the rest of the command.
     *
     * @param jars jar files or directories
     */
    void useDriverJars(List<Path> jars) {
        if (jars != null && !jars.isEmpty()) {
            Thread thread = Thread.currentThread();
            ClassLoader parent = thread.getContextClassLoader() != null ? thread.getContextClassLoader()
                    : getClass().getClassLoader();
            thread.setContextClassLoader(DriverJars.load(jars, parent));
        }
    }

    /**
     * @return the exit code
     * @throws Exception mapped to an exit code by the root's handler
     */
    abstract int run() throws Exception;
}
