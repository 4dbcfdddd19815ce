package dev.rowqueue.spring;

import dev.rowqueue.RowQueues;

/**
 * Adjusts the {@link RowQueues.Builder} of the auto-configured {@link RowQueues} after the {@code rowqueue.*}
 * properties were applied: register a dialect, set what has no property. Declare one or more as beans; they run in
 * their {@code @Order}.
 *
 * <pre>{@code
 * @Bean
 * RowQueuesBuilderCustomizer myDialect() {
 *     return builder -> builder.registerDialect(new MyDialectProvider());
 * }
 * }</pre>
 */
@FunctionalInterface
public interface RowQueuesBuilderCustomizer {

    /** @param builder the builder, with the properties applied */
    void customize(RowQueues.Builder builder);
}
