package dev.rowqueue.spi;

import java.util.Map;

/**
 * The fallback dialect: standard SQL and transactions only (seed 003's "fourth method"), for databases no dialect
 * module serves. It needs SQL:2003 identity columns, SQL:2008 {@code FETCH FIRST}, savepoints and row locks taken by
 * {@code UPDATE}; it takes time from the application's clock, so keep the clocks of nodes sharing a queue in sync.
 * It is used, with a logged warning, when detection finds no dialect, and can be forced with
 * {@code builder.dialect("portable")}.
 */
public final class PortableDialect extends Dialect {

    /** The dialect's name. */
    public static final String NAME = "portable";

    /**
     * @param product the database
     */
    public PortableDialect(DatabaseProduct product) {
        super(product);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Creates the portable dialect; it supports every database but is never chosen by detection. */
    public static final class Provider implements DialectProvider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public int priority() {
            return Integer.MIN_VALUE;
        }

        @Override
        public boolean supports(DatabaseProduct product) {
            return true;
        }

        @Override
        public Dialect create(DatabaseProduct product, Map<String, String> options) {
            if (!options.isEmpty()) {
                throw new IllegalArgumentException("the portable dialect has no options; got " + options.keySet());
            }
            return new PortableDialect(product);
        }
    }
}
