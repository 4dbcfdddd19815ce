package dev.rowqueue.bench;

import java.time.Duration;
import java.util.List;

/**
 * How long and how often each measurement runs.
 *
 * @param name        "smoke", "quick" or "full"
 * @param warmup      untimed run before the iterations (JIT, caches, pools, server buffers)
 * @param iterations  timed iterations; the median is reported, with the spread (min and max)
 * @param iteration   length of one timed iteration
 * @param threads     client thread counts
 * @param backlogJobs live jobs of the large-backlog work queue (plus a tenth as many dead ones)
 * @param rateLimitRun how long the rate-limit accuracy cell ({@link RateLimitCell}) runs its workers
 */
record Profile(String name, Duration warmup, int iterations, Duration iteration, List<Integer> threads,
               int backlogJobs, Duration rateLimitRun) {

    /** The short run for the README: minutes for all three databases. */
    static Profile quick() {
        return new Profile("quick", Duration.ofMillis(500), 3, Duration.ofMillis(500), List.of(1, 4, 16), 1_000_000,
                Duration.ofSeconds(5));
    }

    /** Longer iterations, for numbers to quote. */
    static Profile full() {
        return new Profile("full", Duration.ofSeconds(5), 5, Duration.ofSeconds(10), List.of(1, 4, 16), 1_000_000,
                Duration.ofSeconds(60));
    }

    /** Checks that everything runs; the numbers mean little. */
    static Profile smoke() {
        return new Profile("smoke", Duration.ofMillis(100), 2, Duration.ofMillis(150), List.of(1, 4), 5_000,
                Duration.ofSeconds(2));
    }

    /** @return this profile at other thread counts */
    Profile withThreads(List<Integer> counts) {
        return new Profile(name, warmup, iterations, iteration, List.copyOf(counts), backlogJobs, rateLimitRun);
    }

    /** @return this profile with timed iterations of another length */
    Profile withIteration(Duration length) {
        return new Profile(name, warmup, iterations, length, threads, backlogJobs, rateLimitRun);
    }

    static Profile named(String name) {
        return switch (name) {
            case "quick" -> quick();
            case "full" -> full();
            case "smoke" -> smoke();
            default -> throw new IllegalArgumentException("profile must be smoke, quick or full, not " + name);
        };
    }
}
