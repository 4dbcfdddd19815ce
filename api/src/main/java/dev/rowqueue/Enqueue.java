package dev.rowqueue;

import java.time.Duration;

/**
 * How a job is enqueued: its priority (higher is claimed first) and how long until it may be claimed.
 *
 * <pre>{@code
 * mail.enqueue("hello", Enqueue.priority(5).delay(Duration.ofSeconds(30)));
 * mail.enqueue("later", Enqueue.delayed(Duration.ofMinutes(5)));
 * }</pre>
 *
 * @param priority any int; higher first
 * @param delay    zero or more
 */
public record Enqueue(int priority, Duration delay) {

    private static final Enqueue DEFAULTS = new Enqueue(0, Duration.ZERO);

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException for a negative delay
     */
    public Enqueue {
        WorkQueueOptions.requireNotNegative(delay, "delay");
    }

    /** @return priority 0, no delay */
    public static Enqueue defaults() {
        return DEFAULTS;
    }

    /**
     * @param priority higher is claimed first
     * @return options with this priority and no delay
     */
    public static Enqueue priority(int priority) {
        return new Enqueue(priority, Duration.ZERO);
    }

    /**
     * @param delay zero or more
     * @return options with priority 0 and this delay
     */
    public static Enqueue delayed(Duration delay) {
        return new Enqueue(0, delay);
    }

    /**
     * @param delay zero or more
     * @return a copy with this delay
     */
    public Enqueue delay(Duration delay) {
        return new Enqueue(priority, delay);
    }

    /**
     * @param priority higher is claimed first
     * @return a copy with this priority
     */
    public Enqueue withPriority(int priority) {
        return new Enqueue(priority, delay);
    }
}
