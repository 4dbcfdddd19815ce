package dev.rowqueue.bench;

import java.time.Duration;
import java.util.List;

/**
 * How long and how often each measurement runs.
 *
 * @param name        "quick" or "full"
 * @param warmup      untimed run before the iterations (JIT, caches, pools, server buffers)
 * @param iterations  timed iterations; the median is reported, with the spread (min and max)
 * @param iteration   length of one timed iteration
 * @param threads     client thread counts
 * @param backlogJobs size of the large-backlog work queue
 */
record Profile(String name, Duration warmup, int iterations, Duration iteration, List<Integer> threads,
               int backlogJobs) {

    static Profile quick() {
        return new Profile("quick", Duration.ofMillis(1500), 3, Duration.ofSeconds(2), List.of(1, 4, 16), 200_000);
    }

    static Profile full() {
        return new Profile("full", Duration.ofSeconds(5), 5, Duration.ofSeconds(10), List.of(1, 4, 16), 1_000_000);
    }

    static Profile smoke() {
        return new Profile("smoke", Duration.ofMillis(100), 2, Duration.ofMillis(200), List.of(1, 4), 2_000);
    }
}
