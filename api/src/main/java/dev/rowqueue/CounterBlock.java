package dev.rowqueue;

import java.util.stream.LongStream;

/**
 * Consecutive counter values reserved by {@link Counters#allocate(String, int)}.
 *
 * @param first the first value of the block
 * @param last  the last value of the block, inclusive
 */
public record CounterBlock(long first, long last) {
    /**
     * Validates the bounds.
     *
     * @throws IllegalArgumentException if {@code last < first}
     */
    public CounterBlock {
        if (last < first) {
            throw new IllegalArgumentException("empty block [" + first + ", " + last + "]");
        }
    }

    /** @return how many values the block holds */
    public long size() {
        return last - first + 1;
    }

    /**
     * @param value a value
     * @return whether it lies in this block
     */
    public boolean contains(long value) {
        return value >= first && value <= last;
    }

    /** @return the values in ascending order */
    public LongStream values() {
        return LongStream.rangeClosed(first, last);
    }
}
