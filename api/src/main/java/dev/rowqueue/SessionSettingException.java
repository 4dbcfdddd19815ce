package dev.rowqueue;

/**
 * The database gives rowqueue's sessions a setting its dialect cannot run with (for example PostgreSQL's
 * {@code default_transaction_read_only = on}), and the dialect cannot pin another value itself. Thrown by
 * {@code RowQueues.builder(...).build()}, before any queue is used; the message names the setting and its value.
 */
public class SessionSettingException extends RowQueueException {
    private final String setting;
    private final String value;

    /**
     * @param setting the setting, as the database names it
     * @param value   its value in the session, as the database said
     * @param message what is wrong and what to do
     */
    public SessionSettingException(String setting, String value, String message) {
        super(message);
        this.setting = setting;
        this.value = value;
    }

    /** @return the setting, as the database names it, e.g. {@code default_transaction_read_only} */
    public String setting() {
        return setting;
    }

    /** @return its value in the session, as the database said */
    public String value() {
        return value;
    }
}
