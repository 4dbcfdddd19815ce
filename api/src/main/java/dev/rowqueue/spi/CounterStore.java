package dev.rowqueue.spi;

import java.util.Map;
import java.util.OptionalLong;

/**
 * A counters table's database work, made by {@link Dialect#counterStore}. Arguments are already validated.
 */
public interface CounterStore {
    /**
     * Adds {@code delta}, creating the counter at {@code delta} if missing.
     *
     * @param key   the counter
     * @param delta any value
     * @return the new value, or empty if it would leave the 64-bit range (nothing changed)
     */
    SqlOp<OptionalLong> add(String key, long delta);

    /**
     * @param key the counter
     * @return its value, or empty if missing
     */
    SqlOp<OptionalLong> get(String key);

    /**
     * @param key   the counter
     * @param value the value to store, creating the counter if missing
     * @return nothing
     */
    SqlOp<Void> set(String key, long value);

    /**
     * @param key the counter
     * @return whether it existed
     */
    SqlOp<Boolean> remove(String key);

    /** @return every counter, in any order */
    SqlOp<Map<String, Long>> all();
}
