package dev.rowqueue.examples.spring;

import dev.rowqueue.QueueStats;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.spring.ConfiguredQueues;
import dev.rowqueue.spring.RowQueueHealthIndicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Places orders (a batch at start, then one every {@code order-interval}) and prints progress every second: the
 * orders and receipts in the database, the queue's jobs by state, rowqueue's health, and rowqueue's meters from the
 * application's {@link MeterRegistry} (wired by the starter because rowqueue-micrometer is on the class path).
 */
@Component
public class Demo implements ApplicationRunner {
    private static final Logger log = LoggerFactory.getLogger(Demo.class);
    private static final List<String> CUSTOMERS = List.of("alice", "bob", "carol", "dave", "erin");

    private final OrderService orders;
    private final WorkQueue receipts;
    private final ExampleProperties properties;
    private final TaskScheduler scheduler;
    private final ObjectProvider<RowQueueHealthIndicator> health;
    private final MeterRegistry meters;
    private final AtomicInteger placed = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile ScheduledFuture<?> ordering;
    private volatile String lastReport = "";

    Demo(OrderService orders, ConfiguredQueues queues, ExampleProperties properties, TaskScheduler scheduler,
         ObjectProvider<RowQueueHealthIndicator> health, MeterRegistry meters) {
        this.meters = meters;
        this.orders = orders;
        this.receipts = queues.workQueue("receipts");
        this.properties = properties;
        this.scheduler = scheduler;
        this.health = health;
    }

    @Override
    public void run(ApplicationArguments args) {
        for (int i = 0; i < properties.getOrders(); i++) {
            placeOne();
        }
        log.info("placed {} orders; {} payments refused, rolled back with their receipt jobs", placed.get(),
                refused.get());
        Duration every = properties.getOrderInterval();
        if (every != null && !every.isZero()) {
            ordering = scheduler.scheduleWithFixedDelay(this::placeOne, every);
        }
    }

    private void placeOne() {
        int n = placed.get() + refused.get();
        try {
            orders.place(CUSTOMERS.get(n % CUSTOMERS.size()));
            placed.incrementAndGet();
        } catch (OrderService.PaymentRefused e) {
            refused.incrementAndGet();
        }
    }

    /** Prints a progress line when something changed. */
    @Scheduled(fixedDelay = 1000, initialDelay = 1000)
    public void report() {
        QueueStats q = receipts.stats();
        RowQueueHealthIndicator h = health.getIfAvailable();
        String line = String.format("orders %d (refused and rolled back: %d) | receipts sent %d | queue receipts:"
                        + " ready %d, scheduled %d, leased %d, dead %d | health: %s", orders.orders(), refused.get(),
                orders.receiptsSent(), q.ready(), q.scheduled(), q.leased(), q.dead(),
                h == null ? "n/a" : h.health().getStatus());
        if (!line.equals(lastReport)) {
            lastReport = line;
            log.info(line);
            log.info(metrics());
        }
    }

    /** @return rowqueue's meters of the receipts queue, read from the registry */
    String metrics() {
        Timer handler = meters.find("rowqueue.worker.handler").tag("queue", "receipts").timer();
        Timer wait = meters.find("rowqueue.worker.wait").tag("queue", "receipts").timer();
        return String.format("  metrics: enqueue calls %.0f (rolled-back ones included), jobs succeeded %.0f, failed"
                        + " and retried %.0f, dead %.0f, handler mean %.0f ms, enqueue-to-start mean %.0f ms",
                count(meters.find("rowqueue.operations").tag("queue", "receipts").tag("operation", "enqueue")),
                count(meters.find("rowqueue.worker.jobs").tag("queue", "receipts").tag("outcome", "succeeded")),
                count(meters.find("rowqueue.worker.jobs").tag("queue", "receipts").tag("outcome", "failed")),
                count(meters.find("rowqueue.worker.jobs").tag("queue", "receipts").tag("outcome", "dead")),
                handler == null ? 0 : handler.mean(TimeUnit.MILLISECONDS),
                wait == null ? 0 : wait.mean(TimeUnit.MILLISECONDS));
    }

    private static double count(Search search) {
        return search.counters().stream().mapToDouble(c -> c.count()).sum()
                + search.timers().stream().mapToDouble(t -> t.count()).sum();
    }

    /**
     * Lets the demonstration run for {@code runFor}, stops placing orders, waits (at most a minute) for the receipts
     * and prints a summary.
     *
     * @param runFor how long orders keep coming
     * @return 0 if every order got its receipt and the queue is empty, 1 otherwise
     */
    public int awaitEnd(Duration runFor) {
        try {
            TimeUnit.MILLISECONDS.sleep(runFor.toMillis());
            ScheduledFuture<?> f = ordering;
            if (f != null) {
                f.cancel(false);
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (receipts.stats().total() > 0 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        report();
        long written = orders.orders();
        long sent = orders.receiptsSent();
        QueueStats q = receipts.stats();
        boolean ok = written == placed.get() && sent == written && q.total() == 0;
        log.info("{}: {} orders placed, {} refused (neither order nor job kept), {} receipts sent, {} jobs left",
                ok ? "done" : "INCOMPLETE", written, refused.get(), sent, q.total());
        return ok ? 0 : 1;
    }
}
