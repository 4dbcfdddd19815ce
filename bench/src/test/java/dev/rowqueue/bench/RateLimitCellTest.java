package dev.rowqueue.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The rate-limit cell's arithmetic on made-up start times (never a speed of this machine). */
class RateLimitCellTest {

    @Test
    void a_window_is_half_open_so_starts_a_whole_window_apart_are_in_different_windows() {
        long[] starts = {0, 0, 500, 999, 1000, 1000, 1999, 3000};
        assertEquals(4, RateLimitCell.maxInWindow(starts, 1000), "[0, 1000) and [1000, 2000) hold 4 and 3 starts");
        assertEquals(7, RateLimitCell.maxInWindow(starts, 2000));
        assertEquals(0, RateLimitCell.maxInWindow(new long[0], 1000));
    }

    @Test
    void the_run_counts_the_starts_within_its_length_of_the_first() {
        long[] starts = {100, 600, 1099, 1100, 5000};
        assertEquals(3, RateLimitCell.inRun(starts, 1000));
        assertEquals(0, RateLimitCell.inRun(new long[0], 1000));
    }
}
