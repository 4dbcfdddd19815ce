package dev.rowqueue.spring;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import dev.rowqueue.RowQueues;
import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.H2Grants;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

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

    /**
     * A DBA takes the application user's rights on a worker's queue: the health turns DOWN at the worker's first
     * refused claim, naming the queue, and back UP once the rights are granted again.
     */
    @Test
    void health_is_down_while_the_database_refuses_a_workers_claims_and_up_after_the_grant() throws Exception {
        String url = "jdbc:h2:mem:refused_health_" + DATABASES.incrementAndGet();
        DataSource admin = new DriverManagerDataSource(url + ";DB_CLOSE_DELAY=-1", "sa", "");
        try (RowQueues owner = RowQueues.builder(admin).build()) {
            owner.workQueue("drain").enqueue("before");
        }
        H2Grants app = H2Grants.create(admin, "app", "app");
        DrainTestApp.reset(10);
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("spring.datasource.url", url); // a user without admin rights may not set DB_CLOSE_DELAY
        props.put("spring.datasource.username", "app");
        props.put("spring.datasource.password", "app");
        props.put("rowqueue.create-schema", false);
        props.put("rowqueue.work-queues.drain.lease", "1s");
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(DrainTestApp.class)
                .web(WebApplicationType.NONE).properties(props).run();
        try {
            RowQueueHealthIndicator indicator = ctx.getBean(RowQueueHealthIndicator.class);
            eventually("the job before the revoke ran", () -> DrainTestApp.completed.containsKey("before"));
            app.revokeWrites("drain"); // the health check still reads the queue's counts; the claims fail
            try (RowQueues owner = RowQueues.builder(admin).build()) {
                owner.workQueue("drain").enqueue("after"); // a job to claim: the claim's UPDATE is refused
            }
            eventually("the health is DOWN", () -> indicator.health().getStatus().equals(Status.DOWN));
            Health down = indicator.health();
            @SuppressWarnings("unchecked")
            Map<String, String> refused = (Map<String, String>) down.getDetails().get("refusedWorkers");
            assertThat(refused).containsKey("drain");
            assertThat(refused.get("drain")).contains("refuses the statement");
            app.grant("drain");
            eventually("the health is UP again", () -> indicator.health().getStatus().equals(Status.UP));
            eventually("the job after the grant ran", () -> DrainTestApp.completed.containsKey("after"));
        } finally {
            ctx.close();
        }
    }
}
