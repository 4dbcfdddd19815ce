package dev.rowqueue.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.SoakRun;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The soak ({@link SoakRun}) on the embedded MariaDB, sessions at REPEATABLE READ, a random rowqueue session killed
 * ({@code KILL CONNECTION}) every 250 ms. Only in the {@code soak} profile:
 * {@code ./mvnw -Psoak -pl dialect-mysql -am verify [-Drowqueue.soak.seconds=120]}.
 */
class MariaDbSoakTest {

    @Test
    void a_soak_with_sessions_killed_ends_with_no_anomaly() throws Exception {
        EmbeddedMariaDb server = EmbeddedMariaDb.get();
        String database = "soak_mariadb";
        server.recreateDatabase(database);
        try (HikariDataSource pool = MySqlTargets.pool(server.url(EmbeddedMariaDb.Driver.MARIADB, database), "root", "",
                new MySqlTargets.Session(MySqlTargets.REPEATABLE_READ, "+00:00", false), "soak");
             Connection killer = DriverManager.getConnection(server.url(EmbeddedMariaDb.Driver.MARIADB, database),
                     "root", "")) {
            SoakRun soak = new SoakRun(() -> RowQueues.builder(pool), () -> {
                try (Statement s = killer.createStatement();
                     ResultSet rs = s.executeQuery("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE()"
                             + " AND ID <> CONNECTION_ID() ORDER BY RAND() LIMIT 1")) {
                    if (rs.next()) {
                        try (Statement kill = killer.createStatement()) {
                            kill.execute("KILL CONNECTION " + rs.getLong(1));
                        }
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, Duration.ofSeconds(Long.getLong("rowqueue.soak.seconds", 120)), Duration.ofMillis(250));
            SoakRun.Figures f = soak.run("soak");
            System.out.println(SoakRun.Figures.HEADER + "\n" + f.row("MariaDB " + server.version()
                    + " embedded, REPEATABLE READ"));
            f.anomalies().stream().limit(20).forEach(System.out::println);
            assertEquals(0, f.anomalies().size(), "anomalies: " + f.anomalies().stream().limit(5).toList());
        } finally {
            server.dropDatabase(database);
        }
    }
}
