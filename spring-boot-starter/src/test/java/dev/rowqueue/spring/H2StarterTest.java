package dev.rowqueue.spring;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.concurrent.atomic.AtomicInteger;

/** The starter's contract on embedded H2 (in memory, the H2 dialect). */
class H2StarterTest extends StarterContract {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:starter;DB_CLOSE_DELAY=-1");
        registry.add("spring.datasource.username", () -> "sa");
    }

    @Override
    String newDatabaseUrl(String name) {
        return "jdbc:h2:mem:" + name + "_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
    }

    @Override
    String user() {
        return "sa";
    }
}
