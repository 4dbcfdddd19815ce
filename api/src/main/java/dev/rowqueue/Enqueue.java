package dev.rowqueue;

import dev.rowqueue.internal.Validation;

import java.time.Duration;

/**
 * How a job is enqueued: its priority (higher is claimed first), how long until it may be claimed, and optionally its
 * key and unique key.
 *
 * <pre>{@code
 * mail.enqueue("hello", Enqueue.defaults().withPriority(5).withDelay(Duration.ofSeconds(30)));
 * mail.enqueue("later", Enqueue.defaults().withDelay(Duration.ofMinutes(5)));
 * orders.enqueue("{...}", Enqueue.defaults().withKey("customer-42"));        // per-key limits and fair claims
 * invoices.enqueue("{...}", Enqueue.defaults().withKey("invoice-7").unique()); // one live job for invoice-7
 * }</pre>
 *
 * <p><b>Keys.</b> A job's key (a tenant, a customer, a task type) is what {@link WorkQueueOptions#maxLeasedPerKey(int)}
 * limits and what {@linkplain WorkQueueOptions#fairClaims(boolean) fair claims} take turns between; it comes back as
 * {@link Job#key()}. A job without a key is subject to neither.
 *
 * <p><b>Unique keys.</b> An enqueue with a unique key while a live job (ready, scheduled or leased) holding that unique
 * key exists writes nothing and returns that job's id, atomically, however many producers on however many nodes race.
 * Once that job is acked, or dead, the unique key is free again (a dead job that is revived no longer holds it). The
 * unique key is independent of the key: {@code Enqueue.defaults().withKey("customer-42").withUniqueKey("invoice-7")} limits the
 * customer's concurrency and keeps one live job per invoice; {@link #unique()} uses the key itself.
 *
 * <p>Keys and unique keys are text of 1 to {@value #MAX_KEY_LENGTH} characters, valid Unicode without NUL, compared
 * exactly (case and trailing blanks count) on every database.
 *
 * <p>Immutable: {@link #defaults()} starts a chain and each {@code with} method returns a copy that keeps every other
 * value.
 *
 * @param priority  any int; higher first
 * @param delay     zero or more
 * @param key       the job's key, or {@code null} for none
 * @param uniqueKey the job's unique key, or {@code null} for none
 */
public record Enqueue(int priority, Duration delay, String key, String uniqueKey) {

    /** The longest key or unique key, in characters: what every supported database indexes. */
    public static final int MAX_KEY_LENGTH = 200;

    private static final Enqueue DEFAULTS = new Enqueue(0, Duration.ZERO);

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException for a negative delay, or a key or unique key that is empty, longer than
     *                                  {@value #MAX_KEY_LENGTH} characters, or not valid Unicode without NUL
     */
    public Enqueue {
        WorkQueueOptions.requireNotNegative(delay, "delay");
        if (key != null) {
            Validation.key("job key", key, MAX_KEY_LENGTH);
        }
        if (uniqueKey != null) {
            Validation.key("unique key", uniqueKey, MAX_KEY_LENGTH);
        }
    }

    /**
     * Options without keys.
     *
     * @param priority any int; higher first
     * @param delay    zero or more
     */
    public Enqueue(int priority, Duration delay) {
        this(priority, delay, null, null);
    }

    /**
     * The only way to start a chain: {@code Enqueue.defaults().withKey("k").withPriority(5)}. There are no static
     * starters named like the {@code with} methods, so a chain cannot reset what an earlier step set.
     *
     * @return priority 0, no delay, no keys
     */
    public static Enqueue defaults() {
        return DEFAULTS;
    }

    /**
     * @param delay zero or more
     * @return a copy with this delay
     */
    public Enqueue withDelay(Duration delay) {
        return new Enqueue(priority, delay, key, uniqueKey);
    }

    /**
     * @param priority higher is claimed first
     * @return a copy with this priority
     */
    public Enqueue withPriority(int priority) {
        return new Enqueue(priority, delay, key, uniqueKey);
    }

    /**
     * @param key the job's key: 1 to {@value #MAX_KEY_LENGTH} characters, or {@code null} for none
     * @return a copy with this key
     */
    public Enqueue withKey(String key) {
        return new Enqueue(priority, delay, key, uniqueKey);
    }

    /**
     * @param uniqueKey the unique key: 1 to {@value #MAX_KEY_LENGTH} characters, or {@code null} for none
     * @return a copy with this unique key
     */
    public Enqueue withUniqueKey(String uniqueKey) {
        return new Enqueue(priority, delay, key, uniqueKey);
    }

    /**
     * @return a copy whose unique key is its key
     * @throws IllegalStateException if these options have no key
     */
    public Enqueue unique() {
        if (key == null) {
            throw new IllegalStateException("unique() makes the job's key its unique key, but these options have no"
                    + " key; use Enqueue.defaults().withKey(k).unique() or .withUniqueKey(k)");
        }
        return new Enqueue(priority, delay, key, key);
    }
}
