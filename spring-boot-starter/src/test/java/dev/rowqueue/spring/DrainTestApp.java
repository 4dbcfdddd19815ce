package dev.rowqueue.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application started and closed by the shutdown tests, more than once on one database: a worker bean on the
 * {@code drain} queue whose handler takes {@link #handlerMillis} and records every start, completion and interrupt.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class DrainTestApp {
    static final AtomicInteger started = new AtomicInteger();
    static final Map<String, AtomicInteger> completed = new ConcurrentHashMap<>();
    static final Map<String, AtomicInteger> interrupted = new ConcurrentHashMap<>();
    static volatile long handlerMillis = 200;

    static void reset(long millis) {
        started.set(0);
        completed.clear();
        interrupted.clear();
        handlerMillis = millis;
    }

    @Bean
    WorkerDefinition drainWorker() {
        return WorkerDefinition.of("drain", job -> {
            started.incrementAndGet();
            try {
                TimeUnit.MILLISECONDS.sleep(handlerMillis);
            } catch (InterruptedException e) {
                interrupted.computeIfAbsent(job.payload(), k -> new AtomicInteger()).incrementAndGet();
                throw e;
            }
            completed.computeIfAbsent(job.payload(), k -> new AtomicInteger()).incrementAndGet();
        });
    }
}
