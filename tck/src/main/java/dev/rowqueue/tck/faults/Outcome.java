package dev.rowqueue.tck.faults;

import dev.rowqueue.RowQueueException;
import dev.rowqueue.TransientRowQueueException;
import dev.rowqueue.UnknownCommitOutcomeException;

/** How an operation of a {@link History} ended, as its caller saw it. */
public enum Outcome {
    /** It returned: the write happened (and, for a read, the result is what the database held). */
    OK,
    /** It threw {@link TransientRowQueueException}: rowqueue says nothing was applied. */
    FAILED,
    /** It threw {@link UnknownCommitOutcomeException}: it may or may not have been applied. */
    UNKNOWN,
    /** It threw anything else: an undocumented failure, reported as an anomaly. */
    ERROR;

    /**
     * @param t what an operation threw
     * @return the outcome it stands for
     */
    public static Outcome of(Throwable t) {
        if (t instanceof UnknownCommitOutcomeException) {
            return UNKNOWN;
        }
        if (t instanceof TransientRowQueueException) {
            return FAILED;
        }
        return ERROR;
    }

    /**
     * @param t what an operation threw
     * @return whether it is one of rowqueue's own exceptions (an {@link #ERROR} that is not is a broken promise:
     *         every failure of the API is a {@link RowQueueException} or a refusal of bad input)
     */
    static boolean documented(Throwable t) {
        return t instanceof RowQueueException;
    }
}
