package dev.rowqueue.internal;

import dev.rowqueue.RowQueues;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema creation of one database runs one statement at a time in a JVM, whichever {@code RowQueues} instance (and
 * data source object) asks: on some databases connections creating one queue's tables at once wait for each other
 * where the database cannot see the cycle (docs/portable.md, "Where readers wait for writers").
 */
class SchemaCreationLockTest {

    private static final AtomicInteger RUNNING = new AtomicInteger();
    private static final AtomicInteger MOST = new AtomicInteger();
    private static final AtomicInteger DDL = new AtomicInteger();

    /** A data source of the database whose CREATE statements are counted while they run, each taking a while. */
    private static DataSource counting(String url) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url);
        return (DataSource) Proxy.newProxyInstance(SchemaCreationLockTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (p, m, a) -> {
                    Object result = call(m, h2, a);
                    return result instanceof Connection c ? connection(c) : result;
                });
    }

    private static Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(SchemaCreationLockTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                    Object result = call(m, c, a);
                    return result instanceof Statement s && m.getName().equals("createStatement") ? statement(s)
                            : result;
                });
    }

    private static Statement statement(Statement s) {
        return (Statement) Proxy.newProxyInstance(SchemaCreationLockTest.class.getClassLoader(),
                new Class<?>[] {Statement.class}, (p, m, a) -> {
                    boolean ddl = m.getName().equals("execute") && a != null && a[0] instanceof String sql
                            && sql.trim().toUpperCase(java.util.Locale.ROOT).startsWith("CREATE");
                    if (!ddl) {
                        return call(m, s, a);
                    }
                    DDL.incrementAndGet();
                    MOST.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
                    try {
                        Thread.sleep(5);
                        return call(m, s, a);
                    } finally {
                        RUNNING.decrementAndGet();
                    }
                });
    }

    private static Object call(java.lang.reflect.Method m, Object target, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void instances_on_one_database_create_their_queues_one_statement_at_a_time() throws Exception {
        String url = "jdbc:h2:mem:schema_lock;DB_CLOSE_DELAY=-1";
        int nodes = 6;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                int node = i;
                done.add(pool.submit(() -> {
                    start.await();
                    try (RowQueues rq = RowQueues.builder(counting(url)).dialect("portable").build()) {
                        rq.workQueue("lock_w" + node % 3).enqueue("x");
                        rq.ring("lock_r" + node % 2, 4).push("g", "x");
                        rq.counters("lock_c").increment("k");
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(DDL.get()).as("CREATE statements run").isGreaterThan(nodes);
        assertThat(MOST.get()).as("CREATE statements running at once").isEqualTo(1);
    }
}
