package dev.rowqueue.sqlite;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.util.Map;

/**
 * Recognises SQLite (product name "SQLite", as xerial reports it). Versions before 3.35 are refused with a clear
 * error: they lack {@code RETURNING}, and the portable dialect cannot serve SQLite (it has no {@code FETCH FIRST}).
 */
public final class SqliteDialectProvider implements DialectProvider {

    @Override
    public String name() {
        return SqliteDialect.NAME;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.productName().equalsIgnoreCase("SQLite");
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("the sqlite dialect has no options; got " + options.keySet());
        }
        if (!product.atLeast(SqliteDialect.OLDEST_MAJOR, SqliteDialect.OLDEST_MINOR)) {
            throw new IllegalStateException("rowqueue-dialect-sqlite needs SQLite " + SqliteDialect.OLDEST_MAJOR + "."
                    + SqliteDialect.OLDEST_MINOR + " or later (RETURNING); this is " + product.describe()
                    + ": use a newer org.xerial:sqlite-jdbc, which brings its own SQLite");
        }
        return new SqliteDialect(product);
    }
}
