package dev.rowqueue.support;

import dev.rowqueue.Enqueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a rate limit costs a claim ({@link RateRing}), in statements the store prepares: the head row's lock and read,
 * one read of the ring rows and the clock, and one {@code UPDATE} of the ring rows and the head, whatever the number of
 * jobs; the first lap of the ring also inserts each ring row once.
 */
class RateRingStatementsTest {

    private final AtomicInteger statements = new AtomicInteger();

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** @return the data source, its connections counting the statements they prepare or create */
    private DataSource counting(DataSource ds) {
        InvocationHandler connections = (p, m, args) -> {
            Object result = invoke(ds, m, args);
            if (!(result instanceof Connection c)) {
                return result;
            }
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (cp, cm, cargs) -> {
                        if (cm.getName().startsWith("prepare") || cm.getName().equals("createStatement")) {
                            statements.incrementAndGet();
                        }
                        return invoke(c, cm, cargs);
                    });
        };
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                connections);
    }

    private int statementsOf(Runnable claim) {
        int before = statements.get();
        claim.run();
        return statements.get() - before;
    }

    @Test
    void a_limited_claim_costs_four_statements_more_whatever_its_size_and_one_insert_per_new_ring_row()
            throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:rate_statements;DB_CLOSE_DELAY=-1");
        try (RowQueues rq = RowQueues.builder(counting(h2)).build()) {
            WorkQueue free = rq.workQueue("unlimited_q");
            WorkQueue limited = rq.workQueue("limited_q", WorkQueueOptions.defaults()
                    .withRateLimit(5, Duration.ofMillis(200)));
            free.enqueueAll(Collections.nCopies(40, "x"), Enqueue.defaults());
            limited.enqueueAll(Collections.nCopies(40, "x"), Enqueue.defaults());
            free.claim(1); // warm up: whatever a queue's first claim creates (and the rate head row, ring row 0)
            limited.claim(1);
            int free1 = statementsOf(() -> assertEquals(1, free.claim(1).size()));
            int free4 = statementsOf(() -> assertEquals(4, free.claim(4).size()));
            assertEquals(free4 + 4 + 4, statementsOf(() -> assertEquals(4, limited.claim(4).size())),
                    "first lap, 4 jobs into ring rows 1 to 4, new");
            Thread.sleep(250); // the window has passed: every ring row may be reused
            assertEquals(free1 + 4, statementsOf(() -> assertEquals(1, limited.claim(1).size())), "1 job");
            assertEquals(free4 + 4, statementsOf(() -> assertEquals(4, limited.claim(4).size())), "4 jobs");
        }
    }
}
