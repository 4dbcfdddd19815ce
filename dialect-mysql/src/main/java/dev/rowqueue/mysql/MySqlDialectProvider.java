package dev.rowqueue.mysql;

import dev.rowqueue.spi.DatabaseProduct;
import dev.rowqueue.spi.Dialect;
import dev.rowqueue.spi.DialectProvider;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Recognises MySQL 5.7 and later (product name "MySQL", any driver), but not MariaDB, which MySQL Connector/J also
 * reports as "MySQL": {@link MariaDbDialectProvider} ranks above this provider and claims it first.
 */
public final class MySqlDialectProvider implements DialectProvider {

    /** Detection rank: below {@link MariaDbDialectProvider#PRIORITY}. */
    public static final int PRIORITY = 10;

    @Override
    public String name() {
        return MySqlDialect.MYSQL;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public boolean supports(DatabaseProduct product) {
        if (product.isMariaDb() || !product.nameContains("mysql")) {
            return false;
        }
        ServerVersion v = ServerVersion.of(product);
        return v.atLeast(5, 7, 0);
    }

    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options) {
        return MySqlDialect.create(MySqlDialect.MYSQL, product, options);
    }

    /**
     * Asks the server once whether it is a Galera node ({@link MySqlDialect#galera()}) or a Group Replication member
     * ({@link MySqlDialect#groupReplication()}).
     */
    @Override
    public Dialect create(DatabaseProduct product, Map<String, String> options, Connection connection)
            throws SQLException {
        return MySqlDialect.create(MySqlDialect.MYSQL, product, options, MySqlDialect.isGalera(connection),
                MySqlDialect.groupReplication(connection));
    }
}
