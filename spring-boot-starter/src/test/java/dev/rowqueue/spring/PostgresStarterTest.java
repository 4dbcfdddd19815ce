package dev.rowqueue.spring;

import dev.rowqueue.testkit.EmbeddedPostgresServer;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter's contract on embedded PostgreSQL (zonky binaries, the PostgreSQL dialect, LISTEN/NOTIFY wake-ups). */
class PostgresStarterTest extends StarterContract {

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        String url = newDatabase("starter");
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "");
    }

    @Override
    String newDatabaseUrl(String name) {
        return newDatabase(name);
    }

    /** @return the URL of a new, empty database on the JVM's embedded server (user postgres, no password) */
    private static String newDatabase(String prefix) {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.shared();
        return server.url(server.newDatabase(prefix));
    }

    @Override
    String user() {
        return "postgres";
    }
}
