package dev.rowqueue.micrometer;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The depth gauges' cost on embedded PostgreSQL. */
class PostgresDepthCostTest extends DepthCostContract {
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

    @Override
    String database() {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1) + " (embedded)";
        } catch (SQLException e) {
            return "PostgreSQL (embedded)";
        }
    }
}
