package dev.rowqueue;

/**
 * A schedule of that name exists with another definition; {@link Schedules#replace} changes it.
 */
public class ScheduleConflictException extends RowQueueException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what differs
     */
    public ScheduleConflictException(String message) {
        super(message);
    }
}
