package dev.rowqueue.internal;

import dev.rowqueue.Operation;
import dev.rowqueue.OperationEvent;
import dev.rowqueue.OperationListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Times a handle's operation and tells the registered {@link OperationListener}s. An instance exists only when at
 * least one listener is registered, and only then are handles wrapped in the decorators that call it
 * ({@link ObservedWorkQueue}, {@link ObservedRingQueue}, {@link ObservedCounters}); without listeners callers get the
 * handles that do the work, which neither read the clock nor allocate an event or a lambda for reporting.
 */
final class Operations {
    private static final Logger log = LoggerFactory.getLogger(Operations.class);

    /** Items of an operation that handles one thing. */
    static final ToIntFunction<Object> ONE = r -> 1;
    /** Items of an operation whose {@code boolean} result says whether it took effect. */
    static final ToIntFunction<Boolean> IF_TRUE = r -> r ? 1 : 0;
    /** Items of an operation that returns a list. */
    static final ToIntFunction<List<?>> SIZE = List::size;

    private final OperationListener[] listeners;
    private final AtomicBoolean[] warned;

    private Operations(List<OperationListener> listeners) {
        this.listeners = listeners.toArray(new OperationListener[0]);
        this.warned = new AtomicBoolean[this.listeners.length];
        for (int i = 0; i < warned.length; i++) {
            warned[i] = new AtomicBoolean();
        }
    }

    /**
     * @param listeners the builder's listeners
     * @return what tells them, or {@code null} if there are none
     */
    static Operations of(List<OperationListener> listeners) {
        return listeners.isEmpty() ? null : new Operations(listeners);
    }

    /**
     * Runs an operation and reports it once, whether it returns or throws; what it throws is rethrown unchanged.
     *
     * @param queue     the queue name
     * @param operation which operation
     * @param body      the operation
     * @param items     how many items a result stands for
     * @param <R>       the result type
     * @return the operation's result
     */
    <R> R run(String queue, Operation operation, Supplier<R> body, ToIntFunction<? super R> items) {
        long start = System.nanoTime();
        R result;
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            report(new OperationEvent(queue, operation, 0, System.nanoTime() - start, OperationEvent.Outcome.of(e), e));
            throw e;
        }
        long nanos = System.nanoTime() - start;
        report(new OperationEvent(queue, operation, items.applyAsInt(result), nanos, OperationEvent.Outcome.SUCCESS,
                null));
        return result;
    }

    /**
     * Reports an operation that returns nothing.
     *
     * @param queue     the queue name
     * @param operation which operation
     * @param body      the operation
     */
    void run(String queue, Operation operation, Runnable body) {
        run(queue, operation, () -> {
            body.run();
            return null;
        }, ONE);
    }

    private void report(OperationEvent event) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].onOperation(event);
            } catch (RuntimeException e) {
                if (warned[i].compareAndSet(false, true)) {
                    log.warn("rowqueue: operation listener {} threw on {} of {}; ignored (logged once, at DEBUG after)",
                            listeners[i], event.operation(), event.queue(), e);
                } else {
                    log.debug("rowqueue: operation listener {} threw on {} of {}; ignored", listeners[i],
                            event.operation(), event.queue(), e);
                }
            }
        }
    }
}
