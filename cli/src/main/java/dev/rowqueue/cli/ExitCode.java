package dev.rowqueue.cli;

/** The command line's exit codes, documented in docs/cli.md. */
public final class ExitCode {
    /** The command did what was asked: the TCK verdict is PASSED, the migration is verified. */
    public static final int OK = 0;
    /** The command ran, and its checked outcome is negative: a TCK verdict other than PASSED, a migration that did
     *  not verify or whose queue could not be copied. */
    public static final int FAILED = 1;
    /** Bad usage: an unknown command or option, a bad value, an unknown dialect, an invalid queue name. */
    public static final int USAGE = 2;
    /** The database could not be used: no driver for the URL, no connection, an SQL error. */
    public static final int DATABASE = 3;
    /** Something named does not exist: a queue missing from the catalog or of another kind, no dead job with an id. */
    public static final int NOT_FOUND = 4;
    /** A counter would leave the range of a signed 64-bit integer: nothing was changed. */
    public static final int OVERFLOW = 5;

    private ExitCode() {
    }
}
