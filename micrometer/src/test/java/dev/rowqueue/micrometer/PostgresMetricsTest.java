package dev.rowqueue.micrometer;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** The meters on embedded PostgreSQL (one database for the class; every test uses queues of its own). */
class PostgresMetricsTest extends MetricsContract {
    private static HikariDataSource pool;

    @BeforeAll
    static void start() {
        pool = Databases.postgres();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }
}
