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

    @Override
    String size(String queue) {
        String table = dev.rowqueue.spi.WorkTables.of(queue).jobs();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_relation_size('" + table + "'), pg_total_relation_size('"
                     + table + "')")) {
            rs.next();
            return String.format(java.util.Locale.ROOT, "table %s %.1f MB, with indexes %.1f MB", table,
                    rs.getLong(1) / 1e6, rs.getLong(2) / 1e6);
        } catch (SQLException e) {
            return "";
        }
    }
}
