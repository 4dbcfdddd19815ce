package dev.rowqueue.internal;

import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A claim whose answer arrives after its lease ended (a stalled server or network answered late, when another consumer
 * may already have claimed, run and acked the same jobs) hands out nothing, and its jobs come back without a counted
 * attempt.
 */
class LateClaimTest {

    private static final AtomicBoolean ARMED = new AtomicBoolean();

    @Test
    void a_claim_answered_after_its_lease_hands_out_nothing_and_gives_its_jobs_back() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:late_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        try (RowQueues rq = RowQueues.builder(slowClaims(h2)).build()) {
            WorkQueue q = rq.workQueue("late", WorkQueueOptions.defaults().withLeaseDuration(Duration.ofMillis(400)))
                    .create();
            long id = q.enqueue("late", Enqueue.defaults());
            ARMED.set(true);
            assertEquals(List.of(), q.claim(1).stream().map(Job::id).toList(),
                    "the answer came 600 ms after a claim with a 400 ms lease");
            List<Job> again = q.claim(1);
            assertEquals(List.of(id), again.stream().map(Job::id).toList());
            assertEquals(0, again.get(0).failures(), "nobody received it: no attempt counted");
        }
    }

    /** Delays, once armed, the answer of the next claim (an UPDATE that sets a lease token) by 600 ms. */
    private static DataSource slowClaims(JdbcDataSource h2) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    Object r = invoke(h2, m, a);
                    return r instanceof Connection c ? connection(c) : r;
                });
    }

    private static Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    Object r = invoke(c, m, a);
                    if (r instanceof PreparedStatement ps && a != null && a[0] instanceof String sql
                            && sql.toLowerCase(Locale.ROOT).contains("lease_token")
                            && !sql.toLowerCase(Locale.ROOT).startsWith("delete")) {
                        return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                                new Class<?>[] {PreparedStatement.class}, (sp, sm, sa) -> {
                                    Object answer = invoke(ps, sm, sa);
                                    if (sm.getName().startsWith("execute") && ARMED.compareAndSet(true, false)) {
                                        Thread.sleep(600);
                                    }
                                    return answer;
                                });
                    }
                    return r;
                });
    }

    private static Object invoke(Object target, Method m, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
