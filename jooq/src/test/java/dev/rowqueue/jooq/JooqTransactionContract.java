package dev.rowqueue.jooq;

import dev.rowqueue.Job;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RingEntry;
import dev.rowqueue.RowQueues;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.SQLDataType;
import org.jooq.impl.ThreadLocalTransactionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the jOOQ binding promises, on one database, with jOOQ's own transaction API: queue, ring and counter operations
 * of a view bound with {@code using(cfg)} commit and roll back with the jOOQ writes of the same transaction, nested
 * transactions (savepoints) included, and the jobs are then the pooled handles' like any other. A subclass per
 * database says which one ({@link #open()}).
 *
 * <p>The business table is written with jOOQ's DSL, without generated code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JooqTransactionContract {
    static final Table<Record> ORDERS = DSL.table(DSL.name("jooq_orders"));
    static final Field<Long> ID = DSL.field(DSL.name("id"), SQLDataType.BIGINT);
    static final Field<String> ITEM = DSL.field(DSL.name("item"), SQLDataType.VARCHAR(100));

    private static final AtomicInteger NAMES = new AtomicInteger();

    private JooqTarget target;
    private DSLContext ctx;
    private RowQueues rowQueues;

    private JooqWorkQueue jobs;
    private JooqRingQueue recent;
    private JooqCounters numbers;

    /** @return a pool on a fresh database */
    abstract JooqTarget open();

    @BeforeAll
    void start() {
        target = open();
        ctx = DSL.using(target.pool(), target.dialect());
        ctx.createTableIfNotExists(ORDERS)
                .column(ID, SQLDataType.BIGINT.notNull())
                .column(ITEM, SQLDataType.VARCHAR(100).notNull())
                .primaryKey(ID)
                .execute();
        rowQueues = JooqRowQueues.builder(ctx).build();
        assertSame(target.pool(), JooqRowQueues.dataSource(ctx.configuration()),
                "a DSLContext made from a DataSource gives rowqueue that DataSource");
    }

    @AfterAll
    void stop() {
        if (rowQueues != null) {
            rowQueues.close();
        }
        if (target != null) {
            target.close();
        }
    }

    /** Fresh queues for each test; no orders. */
    @BeforeEach
    void fresh() {
        int n = NAMES.incrementAndGet();
        jobs = JooqWorkQueue.of(rowQueues.workQueue("jq_jobs_" + n));
        recent = JooqRingQueue.of(rowQueues.ring("jq_recent_" + n, 3));
        numbers = JooqCounters.of(rowQueues.counters("jq_numbers_" + n));
        ctx.deleteFrom(ORDERS).execute();
    }

    @Test
    void commit_makes_the_order_and_the_job_visible_together() {
        ctx.transaction(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 1L).set(ITEM, "book").execute();
            jobs.using(cfg).enqueue("order 1");
            assertEquals(new QueueStats(0, 0, 0, 0), jobs.queue().stats(),
                    "another connection does not see the job before the transaction commits");
            assertEquals(1, jobs.using(cfg).stats().ready(), "the transaction sees its own job");
        });
        assertEquals(1, ctx.fetchCount(ORDERS));
        List<Job> claimed = jobs.queue().claim(10);
        assertEquals(List.of("order 1"), claimed.stream().map(Job::payload).toList());
        assertTrue(jobs.queue().ack(claimed.get(0)));
        assertEquals(0, target.activeConnections(), "every connection went back to the pool");
    }

    @Test
    void an_exception_rolls_back_the_order_and_the_job() {
        IllegalStateException boom = new IllegalStateException("payment refused");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> ctx.transaction(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 2L).set(ITEM, "lamp").execute();
            jobs.using(cfg).enqueue("order 2");
            jobs.using(cfg).enqueueAll(List.of("order 2, mail", "order 2, invoice"), dev.rowqueue.Enqueue.defaults());
            throw boom;
        }));
        assertSame(boom, thrown);
        assertEquals(0, ctx.fetchCount(ORDERS));
        assertEquals(new QueueStats(0, 0, 0, 0), jobs.queue().stats());
        assertEquals(List.of(), jobs.queue().claim(10));
        assertEquals(0, target.activeConnections());
    }

    @Test
    void transactionResult_returns_the_id_the_pooled_handle_then_claims() {
        long id = ctx.transactionResult(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 3L).set(ITEM, "desk").execute();
            return jobs.using(cfg.dsl()).enqueue("order 3");
        });
        List<Job> claimed = jobs.queue().claim(10);
        assertEquals(1, claimed.size());
        assertEquals(id, claimed.get(0).id());
        assertEquals("order 3", claimed.get(0).payload());
    }

    @Test
    void a_nested_transaction_that_rolls_back_takes_its_operations_with_it() {
        ctx.transaction(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 10L).set(ITEM, "outer").execute();
            jobs.using(cfg).enqueue("outer");
            numbers.using(cfg).increment("orders");
            assertThrows(IllegalStateException.class, () -> cfg.dsl().transaction(inner -> {
                inner.dsl().insertInto(ORDERS).set(ID, 11L).set(ITEM, "inner").execute();
                jobs.using(inner).enqueue("inner");
                recent.using(inner).push("customer-1", "inner");
                numbers.using(inner).increment("orders");
                numbers.using(inner).increment("inner only");
                throw new IllegalStateException("inner fails");
            }));
            jobs.using(cfg).enqueue("after the inner one");
        });
        assertEquals(List.of(10L), ctx.select(ID).from(ORDERS).orderBy(ID).fetch(ID));
        assertEquals(List.of("outer", "after the inner one"), payloads(jobs.queue().claim(10)));
        assertEquals(List.of(), recent.ring().newestFirst("customer-1"));
        assertEquals(1, numbers.counters().get("orders"));
        assertEquals(0, numbers.counters().get("inner only"));
        assertEquals(0, target.activeConnections());
    }

    @Test
    void a_committed_nested_transaction_rolls_back_with_the_outer_one() {
        assertThrows(IllegalStateException.class, () -> ctx.transaction(cfg -> {
            cfg.dsl().transaction(inner -> {
                inner.dsl().insertInto(ORDERS).set(ID, 20L).set(ITEM, "inner").execute();
                jobs.using(inner).enqueue("inner");
                recent.using(inner).push("customer-2", "inner");
            });
            throw new IllegalStateException("outer fails after the inner one committed");
        }));
        assertEquals(0, ctx.fetchCount(ORDERS));
        assertEquals(List.of(), jobs.queue().claim(10));
        assertEquals(0, recent.ring().size("customer-2"));
    }

    @Test
    void a_ring_push_and_a_counter_increment_commit_or_roll_back_with_the_transaction() {
        long first = ctx.transactionResult(cfg -> {
            long n = numbers.using(cfg).increment("order");
            cfg.dsl().insertInto(ORDERS).set(ID, n).set(ITEM, "chair").execute();
            recent.using(cfg).push("customer-7", "order " + n);
            return n;
        });
        assertEquals(1, first);
        assertThrows(IllegalStateException.class, () -> ctx.transaction(cfg -> {
            long n = numbers.using(cfg).increment("order");
            cfg.dsl().insertInto(ORDERS).set(ID, n).set(ITEM, "table").execute();
            recent.using(cfg).push("customer-7", "order " + n);
            throw new IllegalStateException("rolled back");
        }));
        long third = ctx.transactionResult(cfg -> {
            long n = numbers.using(cfg).increment("order");
            cfg.dsl().insertInto(ORDERS).set(ID, n).set(ITEM, "shelf").execute();
            recent.using(cfg).push("customer-7", "order " + n);
            return n;
        });
        assertEquals(2, third, "the number the rolled back transaction drew is given again");
        assertEquals(List.of(1L, 2L), ctx.select(ID).from(ORDERS).orderBy(ID).fetch(ID));
        assertEquals(List.of("order 2", "order 1"),
                recent.ring().newestFirst("customer-7").stream().map(RingEntry::payload).toList());
        assertEquals(2, numbers.counters().get("order"));
    }

    @Test
    void jobs_enqueued_through_jooq_are_claimed_nacked_and_acked_by_a_pooled_handle() {
        List<Long> ids = ctx.transactionResult(cfg -> jobs.using(cfg).enqueueAll(
                List.of("a", "b", "c", "d", "e"), dev.rowqueue.Enqueue.defaults()));
        List<Job> claimed = jobs.queue().claim(10);
        assertEquals(ids, claimed.stream().map(Job::id).toList());
        assertEquals(List.of("a", "b", "c", "d", "e"), payloads(claimed));
        assertTrue(jobs.queue().nack(claimed.get(0), Duration.ZERO));
        for (Job job : claimed.subList(1, claimed.size())) {
            assertTrue(jobs.queue().ack(job));
        }
        List<Job> again = jobs.queue().claim(10);
        assertEquals(List.of(ids.get(0)), again.stream().map(Job::id).toList());
        assertEquals(1, again.get(0).failures());
        assertTrue(jobs.queue().ack(again.get(0)));
        assertEquals(new QueueStats(0, 0, 0, 0), jobs.queue().stats());
    }

    @Test
    void a_bound_view_acks_a_claimed_job_in_the_transaction_that_records_its_effect() {
        jobs.queue().enqueue("ship order 30");
        Job job = jobs.queue().claim(1).get(0);
        assertThrows(IllegalStateException.class, () -> ctx.transaction(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 30L).set(ITEM, "shipped").execute();
            assertTrue(jobs.using(cfg).ack(job));
            throw new IllegalStateException("shipping failed");
        }));
        assertEquals(new QueueStats(0, 0, 1, 0), jobs.queue().stats(), "the ack rolled back: still leased");
        ctx.transaction(cfg -> {
            cfg.dsl().insertInto(ORDERS).set(ID, 30L).set(ITEM, "shipped").execute();
            assertTrue(jobs.using(cfg).ack(job));
        });
        assertEquals(new QueueStats(0, 0, 0, 0), jobs.queue().stats());
        assertEquals(1, ctx.fetchCount(ORDERS));
    }

    @Test
    void outside_a_transaction_each_operation_commits_on_its_own_and_gives_its_connection_back() {
        long id = jobs.using(ctx).enqueue("no transaction");
        assertEquals(0, target.activeConnections());
        assertEquals(1, numbers.using(ctx).increment("k"));
        assertEquals(1, recent.using(ctx).push("g", "no transaction"));
        assertEquals(0, target.activeConnections());
        assertEquals(List.of(id), jobs.queue().claim(10).stream().map(Job::id).toList());
        assertEquals(1, numbers.counters().get("k"));
        assertEquals(1, recent.ring().size("g"));
    }

    @Test
    void with_a_thread_local_transaction_provider_the_context_itself_is_bound() {
        DSLContext threadLocal = DSL.using(ctx.configuration().derive(
                new ThreadLocalTransactionProvider(new DataSourceConnectionProvider(target.pool()))));
        assertThrows(IllegalArgumentException.class, () -> JooqRowQueues.builder(threadLocal));
        assertThrows(IllegalStateException.class, () -> threadLocal.transaction(() -> {
            threadLocal.insertInto(ORDERS).set(ID, 40L).set(ITEM, "rolled back").execute();
            jobs.using(threadLocal).enqueue("rolled back");
            throw new IllegalStateException("rolled back");
        }));
        threadLocal.transaction(() -> {
            threadLocal.insertInto(ORDERS).set(ID, 41L).set(ITEM, "committed").execute();
            jobs.using(threadLocal).enqueue("committed");
            threadLocal.transaction(() -> {
                jobs.using(threadLocal).enqueue("nested, committed");
            });
            assertThrows(IllegalStateException.class, () -> threadLocal.transaction(() -> {
                jobs.using(threadLocal).enqueue("nested, rolled back");
                throw new IllegalStateException("nested, rolled back");
            }));
        });
        assertEquals(List.of(41L), ctx.select(ID).from(ORDERS).fetch(ID));
        assertEquals(List.of("committed", "nested, committed"), payloads(jobs.queue().claim(10)));
        assertEquals(0, target.activeConnections());
    }

    @Test
    void concurrent_transactions_enqueue_exactly_the_jobs_of_those_that_commit() throws Exception {
        int producers = 4;
        int each = 20;
        ExecutorService pool = Executors.newFixedThreadPool(producers + 1);
        try {
            Set<String> committed = ConcurrentHashMap.newKeySet();
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            AtomicBoolean producing = new AtomicBoolean(true);
            List<Future<?>> futures = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        long id = 1_000L * (producer + 1) + i;
                        boolean commit = i % 3 != 0;
                        try {
                            ctx.transaction(cfg -> {
                                cfg.dsl().insertInto(ORDERS).set(ID, id).set(ITEM, "concurrent").execute();
                                jobs.using(cfg).enqueue("order " + id);
                                if (!commit) {
                                    throw new IllegalStateException("rolled back");
                                }
                            });
                            committed.add("order " + id);
                        } catch (IllegalStateException e) {
                            // the rolled back third
                        }
                    }
                    return null;
                }));
            }
            Future<?> consumer = pool.submit(() -> {
                // claims that do not wait: a waiting one would start the shared instance's PostgreSQL listener,
                // which keeps a pooled connection for good (the other tests count the pool's connections)
                while (producing.get() || jobs.queue().stats().ready() > 0) {
                    List<Job> claimed = jobs.queue().claim(5);
                    for (Job job : claimed) {
                        consumed.add(job.payload());
                        assertTrue(jobs.queue().ack(job));
                    }
                    if (claimed.isEmpty()) {
                        Thread.sleep(10);
                    }
                }
                return null;
            });
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            producing.set(false);
            consumer.get(60, TimeUnit.SECONDS);
            assertEquals(producers * (each - (each + 2) / 3), committed.size());
            assertEquals(committed, consumed, "the consumer got exactly the jobs of the committed transactions");
            assertEquals(committed.size(), ctx.fetchCount(ORDERS));
            assertEquals(new QueueStats(0, 0, 0, 0), jobs.queue().stats());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void a_rowqueues_on_another_connection_provider_serves_blocking_claims_and_releases_every_connection()
            throws Exception {
        CountingProvider provider = new CountingProvider(target.pool());
        DSLContext adapted = DSL.using(provider, target.dialect());
        ExecutorService producer = Executors.newSingleThreadExecutor();
        try (RowQueues rq = JooqRowQueues.builder(adapted).build()) {
            JooqWorkQueue woken = JooqWorkQueue.of(rq.workQueue("jq_woken_" + NAMES.incrementAndGet()));
            Future<Long> enqueued = producer.submit(() -> {
                Thread.sleep(300);
                return adapted.transactionResult(cfg -> woken.using(cfg).enqueue("late"));
            });
            List<Job> claimed = woken.queue().claim(1, Duration.ofSeconds(10));
            assertEquals(List.of(enqueued.get(10, TimeUnit.SECONDS)), claimed.stream().map(Job::id).toList());
            assertTrue(woken.queue().ack(claimed.get(0)));
        } finally {
            producer.shutdownNow();
        }
        assertTrue(provider.acquired.get() > 0);
        assertEquals(provider.acquired.get(), provider.released.get(),
                "every connection acquired was released, the listening one included");
        assertEquals(0, target.activeConnections());
    }

    private static List<String> payloads(List<Job> jobs) {
        return jobs.stream().map(Job::payload).toList();
    }
}
