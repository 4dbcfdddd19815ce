package dev.rowqueue.tck.faults;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/** How {@link FaultTarget}s hold a fault: something undone after the hold, or something repeated during it. */
public final class Holds {

    private Holds() {
    }

    /** Something that begins or ends a fault. */
    @FunctionalInterface
    public interface Step {
        /**
         * Does it.
         *
         * @throws Exception if it cannot be done
         */
        void run() throws Exception;
    }

    /**
     * Begins a fault, holds it, and ends it even if the hold is interrupted.
     *
     * @param hold  how long
     * @param begin begins it (stops a process, cuts a link)
     * @param end   ends it
     * @throws Exception from the steps, or if interrupted
     */
    public static void during(Duration hold, Step begin, Step end) throws Exception {
        try {
            begin.run();
            TimeUnit.NANOSECONDS.sleep(hold.toNanos());
        } finally {
            end.run();
        }
    }

    /**
     * Repeats a fault every 250 ms for the hold.
     *
     * @param hold   how long
     * @param action the fault, returning how many things it hit (sessions killed)
     * @return how many things it hit in all
     * @throws InterruptedException if interrupted
     */
    public static int repeat(Duration hold, IntSupplier action) throws InterruptedException {
        int hit = 0;
        long until = System.nanoTime() + hold.toNanos();
        while (System.nanoTime() < until) {
            hit += action.getAsInt();
            TimeUnit.MILLISECONDS.sleep(250);
        }
        return hit;
    }
}
