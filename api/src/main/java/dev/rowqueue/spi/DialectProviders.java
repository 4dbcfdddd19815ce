package dev.rowqueue.spi;

import dev.rowqueue.internal.DialectResolver;

import java.util.List;

/**
 * The dialects this class path offers, for tools that list them or render DDL without a database (the command
 * line's {@code dialects} and {@code schema}).
 */
public final class DialectProviders {

    private DialectProviders() {
    }

    /**
     * @return every provider found through {@link java.util.ServiceLoader}, highest priority first, then the portable
     *         one
     */
    public static List<DialectProvider> available() {
        return List.copyOf(DialectResolver.all(List.of()));
    }

    /**
     * @param name a dialect name, case ignored
     * @return its provider
     * @throws IllegalArgumentException naming the known dialects if none has that name
     */
    public static DialectProvider named(String name) {
        return DialectResolver.byName(List.of(), name);
    }
}
