package dev.rowqueue.jooq;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jooq.SQLDialect;

/**
 * A database the jOOQ binding is tested on: a pool on a fresh database, and jOOQ's dialect for it.
 *
 * @param name    for test names and messages
 * @param pool    the pool; closed by {@link #close()}
 * @param dialect jOOQ's dialect
 */
record JooqTarget(String name, HikariDataSource pool, SQLDialect dialect) implements AutoCloseable {

    static JooqTarget of(String name, SQLDialect dialect, String url, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(5_000);
        config.setPoolName("jooq-" + dialect.name().toLowerCase(java.util.Locale.ROOT));
        return new JooqTarget(name, new HikariDataSource(config), dialect);
    }

    /** @return connections the pool has handed out and not had back */
    int activeConnections() {
        return pool.getHikariPoolMXBean().getActiveConnections();
    }

    @Override
    public void close() {
        pool.close();
    }
}
