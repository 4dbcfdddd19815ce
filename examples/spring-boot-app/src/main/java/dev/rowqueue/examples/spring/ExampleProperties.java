package dev.rowqueue.examples.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/** {@code rowqueue.example.*}: what the demonstration does. */
@ConfigurationProperties("rowqueue.example")
public class ExampleProperties {

    /** Orders placed at start. */
    private int orders = 20;

    /** One more order this often after the start; 0 for none. */
    private Duration orderInterval = Duration.ofSeconds(2);

    /** Every n-th order's payment fails: the order and its receipt job roll back together. 0 for none. */
    private int failEvery = 5;

    /** How long sending one receipt takes. */
    private Duration sendTime = Duration.ofMillis(100);

    /** Stop placing orders after this long, wait for the receipts, print a summary and exit. Unset: run until stopped. */
    private Duration exitAfter;

    public int getOrders() {
        return orders;
    }

    public void setOrders(int orders) {
        this.orders = orders;
    }

    public Duration getOrderInterval() {
        return orderInterval;
    }

    public void setOrderInterval(Duration orderInterval) {
        this.orderInterval = orderInterval;
    }

    public int getFailEvery() {
        return failEvery;
    }

    public void setFailEvery(int failEvery) {
        this.failEvery = failEvery;
    }

    public Duration getSendTime() {
        return sendTime;
    }

    public void setSendTime(Duration sendTime) {
        this.sendTime = sendTime;
    }

    public Duration getExitAfter() {
        return exitAfter;
    }

    public void setExitAfter(Duration exitAfter) {
        this.exitAfter = exitAfter;
    }
}
