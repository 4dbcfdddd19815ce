package dev.rowqueue;

import java.util.Objects;

/**
 * Capacity and push strategy of a ring queue. Immutable: {@link #ofCapacity(int)} starts a chain, each {@code with}
 * method returns a copy that keeps the other value.
 *
 * <pre>{@code
 * rq.ring("recent_views", RingOptions.ofCapacity(10).withStrategy(RingStrategy.SINGLE_WRITER));
 * }</pre>
 *
 * @param capacity how many entries each group keeps, at least 1
 * @param strategy how pushes are written
 */
public record RingOptions(int capacity, RingStrategy strategy) {

    /** The largest capacity: slots are 32-bit. */
    public static final int MAX_CAPACITY = Integer.MAX_VALUE;

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException if capacity is below 1
     */
    public RingOptions {
        if (capacity < 1) {
            throw new IllegalArgumentException("ring capacity must be at least 1, got " + capacity);
        }
        Objects.requireNonNull(strategy, "strategy");
    }

    /**
     * Options with this capacity and the {@link RingStrategy#SAFE} strategy.
     *
     * @param capacity at least 1
     * @return the options
     */
    public static RingOptions ofCapacity(int capacity) {
        return new RingOptions(capacity, RingStrategy.SAFE);
    }

    /**
     * @param capacity at least 1
     * @return a copy with that capacity
     */
    public RingOptions withCapacity(int capacity) {
        return new RingOptions(capacity, strategy);
    }

    /**
     * @param strategy the push strategy
     * @return a copy with that strategy
     */
    public RingOptions withStrategy(RingStrategy strategy) {
        return new RingOptions(capacity, strategy);
    }
}
