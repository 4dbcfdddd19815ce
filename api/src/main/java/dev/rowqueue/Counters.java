package dev.rowqueue;

import java.sql.Connection;
import java.util.Map;

/**
 * A table of named 64-bit counters (the single-row sequence generators of the MySQL Cookbook's recipe "Using Single-Row
 * Sequence Generators"): increment-and-get is one atomic operation, so every caller gets its own value even under heavy
 * concurrency ("you just bought copy n"). A counter is created on first use with value 0.
 *
 * <p>Keys are non-empty strings of at most {@value #MAX_KEY_LENGTH} characters.
 */
public interface Counters {

    /** The longest counter key, in characters. */
    int MAX_KEY_LENGTH = 200;

    /** @return the table name (lower case) */
    String name();

    /**
     * Adds one and returns the new value.
     *
     * @param key the counter
     * @return the value after this increment
     */
    long increment(String key);

    /**
     * Adds {@code delta} (negative to count down) and returns the new value, atomically.
     *
     * @param key   the counter
     * @param delta any value
     * @return the value after this increment
     * @throws CounterOverflowException if the value would leave the 64-bit range; nothing changes then
     */
    long increment(String key, long delta);

    /**
     * @param key the counter
     * @return its value; 0 for a counter never used
     */
    long get(String key);

    /**
     * Sets (resets) a counter.
     *
     * @param key   the counter
     * @param value the new value
     */
    void set(String key, long value);

    /**
     * Reserves {@code size} consecutive values for id generation: the counter grows by {@code size} and the caller
     * owns every value in the returned block. Concurrent callers get disjoint blocks.
     *
     * @param key  the counter
     * @param size at least 1
     * @return the block {@code [value - size + 1, value]}
     */
    CounterBlock allocate(String key, int size);

    /**
     * Removes a counter (it reads 0 again afterwards).
     *
     * @param key the counter
     * @return {@code false} if it did not exist
     */
    boolean remove(String key);

    /** @return every counter and its value, by key */
    Map<String, Long> all();

    /**
     * A view whose operations run on the caller's connection, in the caller's transaction.
     *
     * @param connection the caller's connection; never closed by rowqueue
     * @return a handle bound to that connection
     * @see RingQueue#using(Connection)
     */
    Counters using(Connection connection);
}
