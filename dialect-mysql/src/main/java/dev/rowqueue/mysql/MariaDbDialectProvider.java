package dev.rowqueue.mysql;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Recognises MariaDB 10.0 and later behind either driver: MariaDB Connector/J reports the product "MariaDB", MySQL
 * Connector/J reports "MySQL" with a version like "11.4.5-MariaDB" (see {@link DatabaseProduct#isMariaDb()}). Ranked
 * above {@link MySqlDialectProvider} so that it is asked first. The dialect is {@link MySqlDialect}, version-gated
 * for MariaDB.
 */
public final class MariaDbDialectProvider implements DialectProvider {

    /** Detection rank: above {@link MySqlDialectProvider#PRIORITY}. */
    public static final int PRIORITY = 20;

    @Override
    public String name() {
        return MySqlDialect.MARIADB;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        return product.isMariaDb() && ServerVersion.of(product).atLeast(10, 0, 0);
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        return MySqlDialect.create(MySqlDialect.MARIADB, product, options);
    }

    /** Asks the server once whether it is a Galera node ({@link MySqlDialect#galera()}). */
    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options, Connection connection)
            throws SQLException {
        return MySqlDialect.create(MySqlDialect.MARIADB, product, options, MySqlDialect.isGalera(connection));
    }
}
