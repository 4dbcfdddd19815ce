package dev.rowqueue;

/**
 * A queue name is not a safe SQL identifier: it must match {@code [A-Za-z][A-Za-z0-9_]*}, be at most
 * {@value RowQueues#MAX_NAME_LENGTH} characters and not be an SQL reserved word. Thrown before any SQL runs.
 */
public class InvalidNameException extends IllegalArgumentException {
    /** @param message the name and the rule it breaks */
    public InvalidNameException(String message) {
        super(message);
    }
}
