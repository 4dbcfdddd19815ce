package dev.rowqueue.examples.spring;

import dev.rowqueue.spring.ConfiguredQueues;
import dev.rowqueue.spring.RowQueueHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example boots, and its worker sends a receipt for every order that was committed, none for the refused ones
 * (their jobs rolled back with them), including the orders whose first attempt failed, and the starter meters it.
 */
@SpringBootTest(properties = {
        "rowqueue.example.orders=20",
        "rowqueue.example.order-interval=0s",
        "rowqueue.example.fail-every=5",
        "rowqueue.example.send-time=5ms",
        "rowqueue.work-queues.receipts.retry-backoff=50ms",
        "spring.main.keep-alive=false"})
class ExampleApplicationTest {

    @Autowired
    Demo demo;
    @Autowired
    OrderService orders;
    @Autowired
    ConfiguredQueues queues;
    @Autowired
    RowQueueHealthIndicator health;
    @Autowired
    MeterRegistry meters;

    @Test
    void every_committed_order_gets_its_receipt_and_refused_ones_leave_nothing() {
        assertThat(demo.awaitEnd(Duration.ZERO)).as("the demo's own summary check").isZero();

        assertThat(orders.orders()).as("20 orders, every 5th refused").isEqualTo(16);
        assertThat(orders.receiptsSent()).isEqualTo(16);
        assertThat(queues.workQueue("receipts").stats().total()).isZero();
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);

        // the starter wired rowqueue-micrometer: 20 enqueues (4 rolled back with their orders), 16 jobs handled,
        // the 2 orders whose first attempt failed (7 and 14) counted as failed once
        assertThat(meters.find("rowqueue.operations").tag("queue", "receipts").tag("operation", "enqueue").timer()
                .count()).isEqualTo(20);
        assertThat(meters.find("rowqueue.worker.jobs").tag("queue", "receipts").tag("outcome", "succeeded").counter()
                .count()).isEqualTo(16);
        assertThat(meters.find("rowqueue.worker.jobs").tag("queue", "receipts").tag("outcome", "failed").counter()
                .count()).isEqualTo(2);
        assertThat(demo.metrics()).contains("jobs succeeded 16");
    }
}
