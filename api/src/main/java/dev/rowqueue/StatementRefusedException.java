package dev.rowqueue;

/**
 * The database refuses to run a statement as written or for this user: a syntax error or access rule violation
 * (SQLState class 42, other than a missing table or an object that already exists) or invalid authorization (class
 * 28), or a dialect's vendor code for one of them. Permanent: the same statement fails the same way until the
 * database changes (a privilege granted, a setting that changes how SQL parses put back), so it is not retried. A
 * {@link Worker} that meets it when it claims logs it once at ERROR, reports it through {@link Worker#refused()}
 * (health DOWN) and tries again only at its longest backoff until the statement runs.
 */
public class StatementRefusedException extends RowQueueException {
    private final String operation;

    /**
     * @param operation the operation whose statement was refused, e.g. {@code "claim from outgoing_mail"}
     * @param message   what failed
     * @param cause     the driver's exception
     */
    public StatementRefusedException(String operation, String message, Throwable cause) {
        super(message, cause);
        this.operation = operation;
    }

    /** @return the operation whose statement the database refused, e.g. {@code "claim from outgoing_mail"} */
    public String operation() {
        return operation;
    }
}
