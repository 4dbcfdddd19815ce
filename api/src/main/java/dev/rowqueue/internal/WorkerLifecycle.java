package dev.rowqueue.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A worker's lifecycle: its state (new, running, closing, closed), pause, and the lock and the signal its dispatcher
 * and {@code close} wait on. The worker's other parts (the prefetch buffer, the ack batch) are guarded by the same
 * {@link #lock}.
 */
final class WorkerLifecycle {
    /** How long one wait lasts at most, so that a state change without a signal is still seen. */
    static final long SLICE_MS = 200;

    /** The states, in the order a worker goes through them. */
    enum State { NEW, RUNNING, CLOSING, CLOSED }

    /** How {@link #beginClose()} found the worker. */
    enum CloseStart {
        /** Another call closes or closed it. */
        ALREADY,
        /** It never started: it is closed now. */
        NEVER_STARTED,
        /** It ran: it is closing now and the caller finishes the close. */
        STARTED
    }

    /** Guards the worker's shared parts; {@link #signalChanged()} is called with it held. */
    final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /**
     * Counts what the dispatcher waits for (a handler finished, pause, resume, close); raised with {@link #lock} held,
     * read without. The dispatcher notes it before it looks at the state and waits only while it is unchanged, so a
     * change between its look and its wait (a no-op handler that finishes before the dispatcher waits) is not lost.
     */
    private volatile long changes;
    private volatile State state = State.NEW;
    private volatile boolean paused;

    /** @return the current state */
    State state() {
        return state;
    }

    /** @return whether the worker runs (started and not closing) */
    boolean isRunning() {
        return state == State.RUNNING;
    }

    /** @return whether the worker is paused */
    boolean isPaused() {
        return paused;
    }

    /** @return the change count to pass to {@link #await} */
    long changes() {
        return changes;
    }

    /**
     * Refuses a second start; called with {@link #lock} held, before {@link #running()}.
     *
     * @param queue the queue's name, for the message
     */
    void requireNew(String queue) {
        if (state != State.NEW) {
            throw new IllegalStateException("worker of " + queue + " was already started (" + state + ")");
        }
    }

    /** Marks the worker running; called with {@link #lock} held. */
    void running() {
        state = State.RUNNING;
    }

    /** Marks the worker closed, at the end of its close. */
    void closed() {
        state = State.CLOSED;
    }

    /**
     * Begins a close: a running worker becomes closing, a worker that never started becomes closed.
     *
     * @return what the close found
     */
    CloseStart beginClose() {
        lock.lock();
        try {
            if (state == State.CLOSING || state == State.CLOSED) {
                return CloseStart.ALREADY;
            }
            boolean started = state == State.RUNNING;
            state = State.CLOSING;
            signalChanged();
            if (!started) {
                state = State.CLOSED;
                return CloseStart.NEVER_STARTED;
            }
            return CloseStart.STARTED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Pauses or resumes claiming, and wakes the dispatcher.
     *
     * @param pause whether to pause
     */
    void pause(boolean pause) {
        paused = pause;
        lock.lock();
        try {
            signalChanged();
        } finally {
            lock.unlock();
        }
    }

    /** Tells the dispatcher and {@code close} that something changed; called with {@link #lock} held. */
    void signalChanged() {
        changes++;
        changed.signalAll();
    }

    /**
     * Waits until something changed since {@link #changes} was {@code seen} (a handler finished, pause, resume,
     * close), at once if it already has, or until {@code ms} pass; returns at once unless running.
     *
     * @param ms   the longest wait
     * @param seen the change count noted before the caller looked at the state
     */
    void await(long ms, long seen) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        lock.lock();
        try {
            while (state == State.RUNNING && changes == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits, in slices, until {@code done} holds or {@code ms} pass; {@code done} is checked with {@link #lock} held.
     *
     * @param done the condition, e.g. no job running
     * @param ms   the longest wait
     * @return whether {@code done} held
     */
    boolean awaitUntil(BooleanSupplier done, long ms) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(SLICE_MS)));
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return done.getAsBoolean();
        } finally {
            lock.unlock();
        }
    }
}
