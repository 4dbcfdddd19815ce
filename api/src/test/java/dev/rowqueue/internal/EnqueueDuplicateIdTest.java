package dev.rowqueue.internal;

import dev.rowqueue.Enqueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLIntegrityConstraintViolationException;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A server that hands out an id it already gave (seen on MySQL Group Replication after the whole group was killed and
 * restarted: "Duplicate entry '121' for key 'PRIMARY'" on a plain enqueue) refuses the insert and applies nothing; the
 * enqueue tries again and gets a fresh id, instead of failing with an error that says neither "nothing applied" nor
 * "unknown".
 */
class EnqueueDuplicateIdTest {

    @Test
    void an_enqueue_refused_for_a_duplicate_id_is_tried_again_and_written_once() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:dupid_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        AtomicInteger refused = new AtomicInteger();
        DataSource ds = refusingFirstInsert(h2, "dup (", refused);
        try (RowQueues rq = RowQueues.builder(ds).build()) {
            WorkQueue q = rq.workQueue("dup").create();
            ARMED.set(true);
            long id = q.enqueue("once", Enqueue.defaults());
            ARMED.set(true);
            long other = q.enqueueAll(List.of("a", "b"), Enqueue.defaults()).get(0);
            assertEquals(2, refused.get(), "both enqueues met the duplicate first");
            assertEquals(3, q.stats().total(), "each payload written once");
            assertEquals(List.of("once", "a", "b"), q.claim(3).stream().map(j -> j.payload()).toList());
            assertEquals(true, id != other);
        }
    }

    /** Set before an enqueue: its next INSERT fails. */
    private static final java.util.concurrent.atomic.AtomicBoolean ARMED = new java.util.concurrent.atomic.AtomicBoolean();

    /** Fails the first execution of an INSERT, once armed, into the table with a duplicate-key error, running nothing. */
    private static DataSource refusingFirstInsert(JdbcDataSource h2, String table, AtomicInteger refused) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    Object r = invoke(h2, m.getName(), m, a);
                    return r instanceof Connection c ? connection(c, table, refused) : r;
                });
    }

    private static Connection connection(Connection c, String table, AtomicInteger refused) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    Object r = invoke(c, m.getName(), m, a);
                    if (r instanceof PreparedStatement ps && a != null && a[0] instanceof String sql
                            && sql.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").startsWith("insert into " + table)) {
                        return Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                                new Class<?>[] {PreparedStatement.class}, (sp, sm, sa) -> {
                                    if (sm.getName().startsWith("execute") && ARMED.compareAndSet(true, false)) {
                                        refused.incrementAndGet();
                                        throw new SQLIntegrityConstraintViolationException(
                                                "Duplicate entry '121' for key 'PRIMARY' (simulated)",
                                                "23505", 23505);
                                    }
                                    return invoke(ps, sm.getName(), sm, sa);
                                });
                    }
                    return r;
                });
    }

    private static Object invoke(Object target, String name, java.lang.reflect.Method m, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
