package dev.rowqueue.cli;

/** Ends a command with a message for the user and an {@link ExitCode}. */
public final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * @param exitCode one of {@link ExitCode}
     * @param message  what went wrong, for the user
     */
    public CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * @param exitCode one of {@link ExitCode}
     * @param message  what went wrong, for the user
     * @param cause    the underlying error
     */
    public CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** @return the process exit code */
    public int exitCode() {
        return exitCode;
    }
}
