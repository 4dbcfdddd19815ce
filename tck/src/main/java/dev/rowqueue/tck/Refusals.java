package dev.rowqueue.tck;

import dev.rowqueue.OperationEvent;
import dev.rowqueue.OperationListener;
import dev.rowqueue.StatementRefusedException;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The kit's watch for statements the database refuses ({@link StatementRefusedException}: a syntax error, a missing
 * privilege). Every instance {@link TckEnv#builder()} builds reports its operations here; a rule that waits for
 * something to happen ({@code eventually}-style loops) asks {@link #failIfRefusedSince} on every turn, and fails at
 * once with the refusal instead of waiting out its bound: a refused statement fails the same way until the database
 * changes.
 */
final class Refusals implements OperationListener {
    /** The one watch of this JVM's kit runs. */
    static final Refusals WATCH = new Refusals();

    private record Seen(long nanos, StatementRefusedException refusal) {
    }

    private final AtomicReference<Seen> last = new AtomicReference<>();

    private Refusals() {
    }

    @Override
    public void onOperation(OperationEvent event) {
        for (Throwable t = event.error(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StatementRefusedException r) {
                last.set(new Seen(System.nanoTime(), r));
                return;
            }
        }
    }

    /** @return a mark to pass to {@link #failIfRefusedSince(long, String)}: now */
    static long mark() {
        return System.nanoTime();
    }

    /**
     * @param mark what {@link #mark()} returned when the wait began
     * @param what what the rule waits for, for the message
     * @throws AssertionError when the database refused a statement of the kit since the mark
     */
    static void failIfRefusedSince(long mark, String what) {
        Seen seen = WATCH.last.get();
        if (seen != null && seen.nanos() - mark >= 0) {
            throw new AssertionError("gave up waiting for " + what + " at once: the database refuses a statement"
                    + " of the " + seen.refusal().operation() + ", which fails the same way until the database or"
                    + " its grants change: " + seen.refusal().getMessage(), seen.refusal());
        }
    }
}
