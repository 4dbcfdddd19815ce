package dev.rowqueue.internal;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.util.Map;
import java.util.function.Function;

/** Dialects that tests register on a builder ({@code registerDialect}). */
final class TestDialects {

    private TestDialects() {
    }

    /**
     * @param name   the provider's name
     * @param create makes the dialect for a database
     * @return a provider that serves every database with the dialect {@code create} makes
     */
    static DialectProvider provider(String name, Function<DatabaseProduct, Dialect> create) {
        return new DialectProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean supports(DatabaseProduct product) {
                return true;
            }

            @Override
            public Dialect create(DatabaseProduct product, Map<String, String> options) {
                return create.apply(product);
            }
        };
    }
}
