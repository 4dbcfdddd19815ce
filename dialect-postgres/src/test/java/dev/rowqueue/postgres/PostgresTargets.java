package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.TckTargets;

/**
 * TCK targets on PostgreSQL servers that run elsewhere (an existing server, a Testcontainers container), behind a
 * pool: a {@link TckTargets.Connector}.
 */
final class PostgresTargets {

    private PostgresTargets() {
    }

    /**
     * @param name     the report name
     * @param url      a JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     * @return a pooled target (24 connections: the kit uses 17 at once, a listening instance one more)
     */
    static TckTargets.Target pooled(String name, String url, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null && !user.isBlank()) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(24);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        config.setPoolName("rowqueue-tck-postgres");
        HikariDataSource pool = new HikariDataSource(config);
        return TckTargets.of(name, pool, pool::close);
    }
}
