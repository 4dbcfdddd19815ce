package dev.rowqueue.h2;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.util.Map;

/** Recognises H2 2.x ("H2" as product name, major version 2 or later). */
public final class H2DialectProvider implements DialectProvider {

    @Override
    public String name() {
        return H2Dialect.NAME;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.productName().equalsIgnoreCase("H2") && product.majorVersion() >= 2;
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("the h2 dialect has no options; got " + options.keySet());
        }
        return new H2Dialect(product);
    }
}
