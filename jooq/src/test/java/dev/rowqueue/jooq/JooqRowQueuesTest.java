package dev.rowqueue.jooq;

import dev.rowqueue.Counters;
import dev.rowqueue.Job;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkerOptions;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which jOOQ configurations {@link JooqRowQueues} builds on and which it refuses, the {@code DataSource} view of a
 * connection provider, and what a bound view does without a connection. On H2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JooqRowQueuesTest {
    private JooqTarget target;

    @BeforeAll
    void start() {
        target = JooqTarget.of("H2", SQLDialect.H2, "jdbc:h2:mem:jooq_builder;DB_CLOSE_DELAY=-1", "sa", "");
    }

    @AfterAll
    void stop() {
        target.close();
    }

    @Test
    void a_context_on_one_connection_is_refused_for_pooled_operations_but_binds_handles() throws SQLException {
        try (RowQueues rq = RowQueues.builder(target.pool()).build(); Connection c = target.pool().getConnection()) {
            DSLContext single = DSL.using(c, SQLDialect.H2);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> JooqRowQueues.builder(single));
            assertTrue(refused.getMessage().contains("single connection"), refused.getMessage());

            // binding to it is fine: the view runs on that connection, in the caller's JDBC transaction
            JooqWorkQueue jobs = JooqWorkQueue.of(rq.workQueue("single_conn"));
            c.setAutoCommit(false);
            jobs.using(single).enqueue("rolled back by JDBC");
            c.rollback();
            jobs.using(single).enqueue("committed by JDBC");
            c.commit();
            c.setAutoCommit(true);
            assertEquals(List.of("committed by JDBC"), jobs.queue().claim(10).stream().map(Job::payload).toList());
        }
    }

    @Test
    void a_running_transactions_configuration_is_refused() {
        DSLContext ctx = DSL.using(target.pool(), SQLDialect.H2);
        ctx.transaction(cfg -> assertThrows(IllegalArgumentException.class, () -> JooqRowQueues.builder(cfg.dsl())));
        assertEquals(0, target.activeConnections());
    }

    @Test
    void a_detached_context_is_refused() {
        assertThrows(IllegalArgumentException.class, () -> JooqRowQueues.builder(DSL.using(SQLDialect.H2)));
    }

    @Test
    void another_connection_provider_is_adapted_and_every_acquired_connection_is_released() {
        CountingProvider provider = new CountingProvider(target.pool());
        DSLContext ctx = DSL.using(provider, SQLDialect.H2);
        DataSource view = JooqRowQueues.dataSource(ctx.configuration());
        assertNotSame(target.pool(), view);
        try (RowQueues rq = JooqRowQueues.builder(ctx).build()) {
            WorkQueue jobs = rq.workQueue("adapted");
            RingQueue ring = rq.ring("adapted_ring", 2);
            Counters counters = rq.counters("adapted_counters");
            jobs.enqueue("x");
            Job job = jobs.claim(1).get(0);
            assertTrue(jobs.ack(job));
            ring.push("g", "y");
            assertEquals(1, counters.increment("k"));

            // and binding still works on a transaction of that context
            ctx.transaction(cfg -> JooqWorkQueue.of(jobs).using(cfg).enqueue("in a transaction"));
            assertEquals("in a transaction", jobs.claim(1).get(0).payload());
        }
        assertTrue(provider.acquired.get() > 0);
        assertEquals(provider.acquired.get(), provider.released.get(), "every acquired connection was released");
        assertEquals(0, target.activeConnections());
    }

    @Test
    void a_connection_of_the_view_is_released_once_and_unwraps_to_the_acquired_one() throws SQLException {
        CountingProvider provider = new CountingProvider(target.pool());
        DataSource view = JooqRowQueues.dataSource(DSL.using(provider, SQLDialect.H2).configuration());
        Connection c = view.getConnection();
        Connection acquired = provider.last;
        assertSame(acquired, c.unwrap(Connection.class));
        assertTrue(c.isWrapperFor(Connection.class));
        assertFalse(c.isClosed());
        c.close();
        c.close();
        assertTrue(c.isClosed());
        assertEquals(1, provider.released.get());
        assertThrows(SQLException.class, c::createStatement);
        assertEquals(0, target.activeConnections());
    }

    @Test
    void a_bound_view_reads_its_settings_without_a_connection_and_offers_no_worker() {
        CountingProvider provider = new CountingProvider(target.pool());
        DSLContext ctx = DSL.using(provider, SQLDialect.H2);
        try (RowQueues rq = RowQueues.builder(target.pool()).build()) {
            JooqWorkQueue jobs = JooqWorkQueue.of(rq.workQueue("settings_only"));
            JooqRingQueue ring = JooqRingQueue.of(rq.ring("settings_ring", 4));
            JooqCounters counters = JooqCounters.of(rq.counters("settings_counters"));
            WorkQueue view = jobs.using(ctx);
            assertEquals("settings_only", view.name());
            assertEquals(jobs.queue().options(), view.options());
            assertEquals(4, ring.using(ctx).capacity());
            assertEquals(ring.ring().strategy(), ring.using(ctx).strategy());
            assertEquals("settings_counters", counters.using(ctx).name());
            assertThrows(UnsupportedOperationException.class,
                    () -> view.worker(j -> { }, WorkerOptions.defaults()));
            assertEquals(0, provider.acquired.get(), "no connection for settings, none for a refused worker");
            assertTrue(view.toString().contains("settings_only"), view.toString());
        }
    }
}
