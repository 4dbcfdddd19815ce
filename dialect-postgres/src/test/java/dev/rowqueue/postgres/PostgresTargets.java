package dev.rowqueue.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/** TCK targets on PostgreSQL servers that run elsewhere: an existing server, a Testcontainers container. */
final class PostgresTargets {

    /** The existing server's JDBC URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/test}. */
    static final String URL = "ROWQUEUE_TCK_POSTGRES_URL";
    /** Its user (optional). */
    static final String USER = "ROWQUEUE_TCK_POSTGRES_USER";
    /** Its password (optional). */
    static final String PASSWORD = "ROWQUEUE_TCK_POSTGRES_PASSWORD";

    private PostgresTargets() {
    }

    /** @return the server named by {@value #URL} (+ {@value #USER}, {@value #PASSWORD}), behind a pool */
    static TckTarget fromEnvironment() {
        String url = System.getenv(URL);
        if (url == null || url.isBlank()) {
            throw new IllegalStateException(URL + " is not set");
        }
        return pooled("PostgreSQL server at " + url.replaceAll("[?;].*$", ""), url, System.getenv(USER),
                System.getenv(PASSWORD));
    }

    /**
     * @param name     the report name
     * @param url      a JDBC URL
     * @param user     the user, or {@code null}
     * @param password the password, or {@code null}
     * @return a pooled target (24 connections: the kit uses 17 at once, a listening instance one more)
     */
    static TckTarget pooled(String name, String url, String user, String password) {
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
