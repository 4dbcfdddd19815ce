package dev.rowqueue.spring;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter's contract on embedded PostgreSQL (zonky binaries, the PostgreSQL dialect, LISTEN/NOTIFY wake-ups). */
class PostgresStarterTest extends StarterContract {

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        String url = EmbeddedPg.newDatabase("starter");
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> "postgres");
        registry.add("spring.datasource.password", () -> "");
    }

    @Override
    String newDatabaseUrl(String name) {
        return EmbeddedPg.newDatabase(name);
    }

    @Override
    String user() {
        return "postgres";
    }
}
