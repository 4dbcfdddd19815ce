package dev.rowqueue.internal;

import dev.rowqueue.Operation;

import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * What the decorators that report a handle's operations share ({@link ObservedWorkQueue}, {@link ObservedRingQueue},
 * {@link ObservedCounters}): the handle that does the work, and the {@link Operations} that time and report each of
 * its operations once. They are made only where operation listeners are registered
 * ({@link DefaultRowQueues.Context#handle}).
 *
 * @param <H> the handle's type
 */
abstract class ObservedHandle<H> {
    /** The handle that does the work. */
    final H handle;
    private final String queue;
    private final Operations operations;

    ObservedHandle(H handle, String queue, Operations operations) {
        this.handle = handle;
        this.queue = queue;
        this.operations = operations;
    }

    /**
     * Runs an operation of the handle and reports it once ({@link Operations#run(String, Operation, Supplier,
     * ToIntFunction)}).
     */
    final <R> R report(Operation operation, Supplier<R> body, ToIntFunction<? super R> items) {
        return operations.run(queue, operation, body, items);
    }

    /** Runs an operation of the handle that returns nothing and reports it once. */
    final void report(Operation operation, Runnable body) {
        operations.run(queue, operation, body);
    }

    /** @return the queue's name */
    public final String name() {
        return queue;
    }

    @Override
    public final String toString() {
        return handle.toString();
    }
}
