package dev.rowqueue.postgres;

import dev.rowqueue.RowQueues;
import dev.rowqueue.tck.SoakRun;
import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The soak ({@link SoakRun}) on the newest embedded PostgreSQL, pool at REPEATABLE READ, a random rowqueue session
 * terminated ({@code pg_terminate_backend}) every 250 ms. Only in the {@code soak} profile:
 * {@code ./mvnw -Psoak -pl dialect-postgres -am verify [-Drowqueue.soak.seconds=120]}.
 */
class PostgresSoakTest {

    @Test
    void a_soak_with_sessions_killed_ends_with_no_anomaly() throws Exception {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared(EmbeddedPostgresServer.NEWEST);
        String database = server.newDatabase("soak");
        try (var pool = server.pool(database, 40, 10_000, "TRANSACTION_REPEATABLE_READ");
             Connection killer = new DriverManagerDataSource(server.url(database), "postgres", "")
                     .getConnection()) {
            SoakRun soak = new SoakRun(() -> RowQueues.builder(pool), () -> {
                try (Statement s = killer.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                            + " ORDER BY random() LIMIT 1");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, Duration.ofSeconds(Long.getLong("rowqueue.soak.seconds", 120)), Duration.ofMillis(250));
            SoakRun.Figures f = soak.run("soak");
            System.out.println(SoakRun.Figures.HEADER + "\n" + f.row("PostgreSQL " + server.version()
                    + " embedded, pool at REPEATABLE READ"));
            f.anomalies().stream().limit(20).forEach(System.out::println);
            assertEquals(0, f.anomalies().size(), "anomalies: " + f.anomalies().stream().limit(5).toList());
        }
    }
}
