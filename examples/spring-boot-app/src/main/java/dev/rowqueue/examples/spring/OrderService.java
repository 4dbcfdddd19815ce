package dev.rowqueue.examples.spring;

import dev.rowqueue.WorkQueue;
import dev.rowqueue.spring.ConfiguredQueues;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import java.util.concurrent.atomic.AtomicInteger;

/** Places orders: the order row and its receipt job are written in one transaction (a transactional outbox). */
@Service
public class OrderService {

    /** A payment that failed: the order and its receipt job roll back. */
    public static final class PaymentRefused extends RuntimeException {
        PaymentRefused(long order) {
            super("payment refused for order " + order);
        }
    }

    private final JdbcTemplate jdbc;
    private final WorkQueue receipts;
    private final ExampleProperties properties;
    private final AtomicInteger attempts = new AtomicInteger();

    OrderService(JdbcTemplate jdbc, ConfiguredQueues queues, ExampleProperties properties) {
        this.jdbc = jdbc;
        // options from rowqueue.work-queues.receipts.*; the producer creates its queue before the worker's first claim
        // (which would otherwise find no queue and say so) and outside any transaction (its DDL has a connection of
        // its own)
        this.receipts = queues.workQueue("receipts").create();
        this.properties = properties;
    }

    /**
     * Writes an order and enqueues its receipt; every {@code fail-every}-th payment fails after both writes.
     *
     * @param customer who orders
     * @return the order's id
     * @throws PaymentRefused when the payment fails: neither the order nor the job is kept
     */
    @Transactional
    public long place(String customer) {
        int n = attempts.incrementAndGet();
        long id = jdbc.queryForObject("SELECT NEXT VALUE FOR order_ids", Long.class);
        jdbc.update("INSERT INTO orders (id, customer) VALUES (?, ?)", id, customer);
        receipts.enqueue(Long.toString(id)); // joins this transaction
        if (properties.getFailEvery() > 0 && n % properties.getFailEvery() == 0) {
            throw new PaymentRefused(id);
        }
        return id;
    }

    /** @return orders written (committed) */
    public long orders() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
    }

    /** @return orders whose receipt was sent */
    public long receiptsSent() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE receipt_sent", Long.class);
    }

    /**
     * Sends an order's receipt (here: marks it sent).
     *
     * @param order the order's id
     * @return whether the order exists and had no receipt yet
     */
    public boolean sendReceipt(long order) {
        return jdbc.update("UPDATE orders SET receipt_sent = TRUE WHERE id = ? AND NOT receipt_sent", order) == 1;
    }
}
