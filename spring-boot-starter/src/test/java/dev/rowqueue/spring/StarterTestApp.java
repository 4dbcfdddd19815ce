package dev.rowqueue.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The application the {@code @SpringBootTest}s run: an order service that writes an order and enqueues a job in one
 * {@code @Transactional} method (a transactional outbox), and a worker bean on the {@code emails} queue. No component
 * scanning: nothing else of the test sources gets in.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class StarterTestApp {

    /** Payloads the {@code emails} worker handled. */
    public static final class Processed {
        final Set<String> payloads = ConcurrentHashMap.newKeySet();
    }

    /** Business writes and enqueues in one transaction. */
    public static class OrderService {
        private final JdbcTemplate jdbc;
        private final ConfiguredQueues queues;

        OrderService(JdbcTemplate jdbc, ConfiguredQueues queues) {
            this.jdbc = jdbc;
            this.queues = queues;
        }

        /**
         * Inserts order {@code id} and enqueues "order {id}" into {@code queue}, then fails if asked to.
         *
         * @return the job id
         */
        @Transactional
        public long place(String queue, int id, boolean fail) {
            jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
            long job = queues.workQueue(queue).enqueue("order " + id);
            if (fail) {
                throw new IllegalStateException("payment refused for order " + id);
            }
            return job;
        }
    }

    @Bean
    OrderService orderService(JdbcTemplate jdbc, ConfiguredQueues queues) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id INT PRIMARY KEY)");
        return new OrderService(jdbc, queues);
    }

    @Bean
    Processed processed() {
        return new Processed();
    }

    @Bean
    WorkerDefinition emailsWorker(Processed processed) {
        return WorkerDefinition.of("emails", job -> processed.payloads.add(job.payload()));
    }
}
