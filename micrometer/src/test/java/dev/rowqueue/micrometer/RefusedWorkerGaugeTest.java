package dev.rowqueue.micrometer;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.Worker;
import dev.rowqueue.WorkerOptions;
import dev.rowqueue.testkit.DriverManagerDataSource;
import dev.rowqueue.testkit.H2Grants;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rowqueue.worker.refused}: 1 while the database refuses a worker's claims (its user lost the rights on the
 * queue's tables), 0 again once they are granted back.
 */
class RefusedWorkerGaugeTest {

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline).as(what).isTrue();
            Thread.sleep(20);
        }
    }

    @Test
    void the_refused_gauge_is_one_while_the_database_refuses_the_claims_and_zero_after_the_grant() throws Exception {
        String url = "jdbc:h2:mem:refused_gauge_" + UUID.randomUUID().toString().replace("-", "");
        DataSource admin = new DriverManagerDataSource(url + ";DB_CLOSE_DELAY=-1", "sa", "");
        WorkQueueOptions lease = WorkQueueOptions.defaults().withLeaseDuration(Duration.ofSeconds(1));
        try (RowQueues owner = RowQueues.builder(admin).build()) {
            owner.workQueue("gauged", lease).enqueue("x");
        }
        H2Grants app = H2Grants.create(admin, "app", "app");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        try (RowQueues rq = RowQueues.builder(new DriverManagerDataSource(url, "app", "app"))
                .createSchema(false).build()) {
            WorkQueue q = rq.workQueue("gauged", lease);
            Worker worker = q.worker(job -> { }, WorkerOptions.defaults().withThreads(1)
                    .withListener(metrics.workerListener(q)));
            app.revoke("gauged");
            worker.start();
            try {
                await(() -> refused(registry) == 1.0, "the gauge shows the refusal");
                assertThat(worker.refused()).isPresent();
                app.grant("gauged");
                await(() -> refused(registry) == 0.0, "the gauge shows the recovery");
                await(() -> q.stats().ready() == 0, "the job ran");
            } finally {
                worker.close(Duration.ofSeconds(5));
            }
        }
    }

    private static double refused(SimpleMeterRegistry registry) {
        return registry.get(WorkerMeters.REFUSED).tag("queue", "gauged").gauge().value();
    }
}
