package dev.rowqueue.examples.spring;

import dev.rowqueue.spring.WorkerDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;

import java.time.Duration;

/**
 * rowqueue in a Spring Boot application: orders are written together with a "send the receipt" job in one
 * {@code @Transactional} method ({@link OrderService}; a refused payment rolls both back), a worker declared as a
 * bean sends the receipts (retrying a busy mail server), and {@link Demo} prints progress, rowqueue's health and its
 * Micrometer meters (the starter wires rowqueue-micrometer to the actuator's registry; no code here).
 *
 * <pre>
 * ./mvnw -q -pl examples/spring-boot-app -am spring-boot:run
 * ./mvnw -q -pl examples/spring-boot-app -am spring-boot:run -Dspring-boot.run.arguments=--rowqueue.example.exit-after=10s
 * </pre>
 */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(ExampleProperties.class)
public class ExampleApplication {
    private static final Logger log = LoggerFactory.getLogger(ExampleApplication.class);

    /**
     * The receipts worker: options from {@code rowqueue.work-queues.receipts.worker.*}, started with the application
     * and drained when it stops.
     */
    @Bean
    WorkerDefinition receiptsWorker(OrderService orders, ExampleProperties properties) {
        return WorkerDefinition.of("receipts", job -> {
            long order = Long.parseLong(job.payload());
            Thread.sleep(properties.getSendTime().toMillis());
            if (order % 7 == 0 && job.attempt() == 1) {
                throw new IllegalStateException("mail server busy"); // retried after rowqueue.work-queues.receipts.retry-backoff
            }
            if (orders.sendReceipt(order)) {
                log.info("receipt for order {} sent (attempt {})", order, job.attempt());
            }
        });
    }

    /**
     * Runs the application; with {@code rowqueue.example.exit-after} set, ends by itself and exits with status 0 if
     * every order got its receipt.
     *
     * @param args Spring Boot arguments, e.g. {@code --rowqueue.example.exit-after=10s}
     */
    public static void main(String[] args) {
        ConfigurableApplicationContext ctx = SpringApplication.run(ExampleApplication.class, args);
        Duration exitAfter = ctx.getBean(ExampleProperties.class).getExitAfter();
        if (exitAfter != null) {
            int status = ctx.getBean(Demo.class).awaitEnd(exitAfter);
            System.exit(SpringApplication.exit(ctx, () -> status));
        }
    }
}
