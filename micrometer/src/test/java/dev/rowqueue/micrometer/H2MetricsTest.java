package dev.rowqueue.micrometer;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The meters on H2 (a fresh in-memory database per test), and what only a switchable data source can show. */
class H2MetricsTest extends MetricsContract {

    @Override
    DataSource dataSource() {
        return Databases.h2();
    }

    @Test
    void depth_gauges_read_nan_while_the_database_fails_and_query_once_per_interval_meanwhile() {
        MockClock clock = new MockClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        RowQueueMetrics metrics = new RowQueueMetrics(registry);
        Databases.Switched db = new Databases.Switched(Databases.h2());
        try (RowQueues rq = RowQueues.builder(db.ds).retry(RetryPolicy.none()).operationListener(metrics).build()) {
            WorkQueue q = rq.workQueue("outage");
            q.enqueue("x");
            QueueDepthGauges gauges = metrics.monitorDepth(q, Duration.ofSeconds(5));
            assertThat(scrape(registry, "outage", 1).get("ready")).isEqualTo(1.0);

            db.down.set(true);
            clock.add(Duration.ofSeconds(5));
            assertThat(scrape(registry, "outage", 50).values()).as("no number rather than a stale one")
                    .allMatch(v -> Double.isNaN(v));
            assertThat(gauges.stats()).isEmpty();
            assertThat(gauges.queries()).as("the failed attempt counts as the interval's refresh").isEqualTo(2);
            assertThat(operations(registry, "outage", "stats", "transient").count()).isEqualTo(1);

            db.down.set(false);
            assertThat(scrape(registry, "outage", 1).get("ready")).as("not before the interval").isNaN();
            clock.add(Duration.ofSeconds(5));
            assertThat(scrape(registry, "outage", 1).get("ready")).isEqualTo(1.0);
            assertThat(gauges.queries()).isEqualTo(3);
        }
    }

    @Test
    void an_instances_own_tags_go_on_every_meter() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RowQueueMetrics metrics = new RowQueueMetrics(registry, Tags.of("database", "orders"));
        try (RowQueues rq = RowQueues.builder(dataSource()).operationListener(metrics).build()) {
            WorkQueue q = rq.workQueue("tagged");
            q.enqueue("x");
            metrics.workerListener(q);
            metrics.monitorDepth(q);
        }
        assertThat(registry.getMeters()).extracting(m -> m.getId().getName()).contains("rowqueue.operations",
                "rowqueue.operation.items", "rowqueue.worker.running", "rowqueue.worker.jobs",
                "rowqueue.worker.lease.lost", "rowqueue.worker.handler", "rowqueue.worker.wait",
                "rowqueue.worker.database.errors", QueueDepthGauges.NAME);
        assertThat(registry.getMeters()).allMatch(m -> "orders".equals(m.getId().getTag("database"))
                && "tagged".equals(m.getId().getTag("queue")));
    }
}
