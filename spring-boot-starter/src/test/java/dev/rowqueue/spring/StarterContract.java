package dev.rowqueue.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.rowqueue.Enqueue;
import dev.rowqueue.Job;
import dev.rowqueue.QueueInfo;
import dev.rowqueue.QueueKind;
import dev.rowqueue.QueueStats;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * What the starter promises in a real application, run on each database by a subclass that supplies the data
 * source: operations join the caller's Spring-managed transaction and run in their own outside one, a worker bean
 * processes jobs, closing the context loses nothing and runs nothing twice, and the health indicator tells UP,
 * WARNING and DOWN apart.
 */
@SpringBootTest(classes = StarterTestApp.class, properties = {
        "rowqueue.work-queues.dead_letters.max-attempts=1",
        "rowqueue.health.dead-letter-threshold=1",
        "rowqueue.work-queues.emails.worker.threads=2"})
@DirtiesContext
abstract class StarterContract {

    @Autowired
    StarterTestApp.OrderService orders;
    @Autowired
    StarterTestApp.Processed processed;
    @Autowired
    ConfiguredQueues queues;
    @Autowired
    RowQueues rowQueues;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    PlatformTransactionManager transactions;
    @Autowired
    RowQueueHealthIndicator health;

    /**
     * @param name a database name
     * @return the JDBC URL of a database of its own, for applications a test starts and closes itself
     */
    abstract String newDatabaseUrl(String name);

    /** @return the user name for the URLs of {@link #newDatabaseUrl} */
    abstract String user();

    /** Waits up to a minute: a bound against hanging, not a performance check. */
    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within a minute: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private int ordersWithId(int id) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = ?", Integer.class, id);
    }

    private List<String> drain(WorkQueue q) {
        List<String> payloads = new ArrayList<>();
        for (List<Job> jobs = q.claim(100); !jobs.isEmpty(); jobs = q.claim(100)) {
            for (Job j : jobs) {
                payloads.add(j.payload());
                q.ack(j);
            }
        }
        return payloads;
    }

    // ------------------------------------------------------------------ transactions

    @Test
    void an_enqueue_in_a_transactional_method_commits_with_the_business_write() {
        orders.place("outbox_commit", 1, false);

        assertThat(ordersWithId(1)).isEqualTo(1);
        assertThat(drain(queues.workQueue("outbox_commit"))).containsExactly("order 1");
    }

    @Test
    void an_enqueue_in_a_transactional_method_that_throws_rolls_back_with_the_business_write() {
        assertThatThrownBy(() -> orders.place("outbox_rollback", 2, true)).hasMessageContaining("payment refused");

        assertThat(ordersWithId(2)).isZero();
        assertThat(queues.workQueue("outbox_rollback").stats().total()).as("the job rolled back with the order")
                .isZero();
    }

    @Test
    void outside_a_transaction_an_enqueue_commits_on_its_own() {
        WorkQueue q = queues.workQueue("outside_tx");
        q.enqueue("alone");
        // SUPPORTS: transaction synchronization without an actual transaction; marking it rollback-only undoes nothing
        TransactionTemplate supports = new TransactionTemplate(transactions);
        supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
        supports.executeWithoutResult(status -> {
            q.enqueue("in SUPPORTS");
            status.setRollbackOnly();
        });

        assertThat(drain(q)).containsExactlyInAnyOrder("alone", "in SUPPORTS");
    }

    @Test
    void each_enqueue_joins_the_transaction_current_where_it_runs() {
        WorkQueue q = queues.workQueue("nested_tx");
        TransactionTemplate required = new TransactionTemplate(transactions);
        TransactionTemplate requiresNew = new TransactionTemplate(transactions);
        requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        required.executeWithoutResult(outer -> {
            q.enqueue("outer");
            requiresNew.executeWithoutResult(inner -> q.enqueue("inner, committed"));
            assertThat(q.stats().total()).as("the outer transaction sees its job and the inner one's").isEqualTo(2);
            outer.setRollbackOnly();
        });

        assertThat(drain(q)).containsExactly("inner, committed");
    }

    @Test
    void the_binding_wakes_waiters_at_the_commit_of_the_callers_transaction_and_never_after_a_rollback() {
        SpringTransactionBinding binding = new SpringTransactionBinding();
        DataSource ds = jdbc.getDataSource();
        AtomicInteger woken = new AtomicInteger();
        Runnable wake = woken::incrementAndGet;
        assertThat(binding.afterCommit(ds, wake)).as("no transaction: the caller wakes at once").isFalse();
        TransactionTemplate supports = new TransactionTemplate(transactions);
        supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
        supports.executeWithoutResult(status -> assertThat(binding.afterCommit(ds, wake))
                .as("SUPPORTS: synchronization without an actual transaction").isFalse());
        TransactionTemplate required = new TransactionTemplate(transactions);
        required.executeWithoutResult(status -> {
            assertThat(binding.afterCommit(ds, wake)).as("registered").isTrue();
            assertThat(woken).as("not before the commit").hasValue(0);
        });
        assertThat(woken).as("at the commit").hasValue(1);
        required.executeWithoutResult(status -> {
            assertThat(binding.afterCommit(ds, wake)).isTrue();
            status.setRollbackOnly();
        });
        assertThat(woken).as("never after a rollback").hasValue(1);
    }

    // ------------------------------------------------------------------ workers

    @Test
    void a_worker_bean_processes_jobs_enqueued_in_transactions() throws InterruptedException {
        List<String> expected = new ArrayList<>();
        for (int id = 100; id < 120; id++) {
            orders.place("emails", id, false);
            expected.add("order " + id);
        }
        assertThatThrownBy(() -> orders.place("emails", 120, true)).isInstanceOf(IllegalStateException.class);

        eventually("the worker handled the 20 committed jobs",
                () -> processed.payloads.containsAll(expected) && queues.workQueue("emails").stats().total() == 0);
        assertThat(processed.payloads).doesNotContain("order 120");
    }

    private ConfigurableApplicationContext start(String url, Map<String, Object> properties) {
        Map<String, Object> all = new LinkedHashMap<>(properties);
        all.put("spring.datasource.url", url);
        all.put("spring.datasource.username", user());
        all.put("spring.datasource.password", "");
        return new SpringApplicationBuilder(DrainTestApp.class).web(WebApplicationType.NONE).properties(all).run();
    }

    private DataSource plain(String url) {
        return new DriverManagerDataSource(url, user(), "");
    }

    @Test
    void closing_the_context_drains_the_workers_and_loses_nothing() throws Exception {
        String url = newDatabaseUrl("drain");
        DrainTestApp.reset(200);
        Map<String, Object> props = Map.of("rowqueue.work-queues.drain.worker.threads", 4);
        List<String> payloads = IntStream.range(0, 100).mapToObj(i -> "job " + i).toList();

        ConfigurableApplicationContext first = start(url, props);
        first.getBean(ConfiguredQueues.class).workQueue("drain").enqueueAll(payloads, Enqueue.defaults());
        eventually("four handlers started", () -> DrainTestApp.started.get() >= 4);
        first.close();

        try (RowQueues independent = RowQueues.builder(plain(url)).build()) {
            QueueStats after = independent.workQueue("drain").stats();
            assertThat(after.leased()).as("no job left leased: running ones finished, prefetched ones given back")
                    .isZero();
            assertThat(DrainTestApp.interrupted).as("handlers finished within the drain").isEmpty();
            assertThat(DrainTestApp.completed.size() + after.ready())
                    .as("every job either completed or is ready again").isEqualTo(payloads.size());
            assertThat(DrainTestApp.completed.size()).as("the context stopped before all jobs ran")
                    .isLessThan(payloads.size());

            ConfigurableApplicationContext second = start(url, props);
            try {
                eventually("the second application ran the rest",
                        () -> independent.workQueue("drain").stats().total() == 0);
            } finally {
                second.close();
            }
        }
        assertThat(DrainTestApp.completed.keySet()).containsExactlyInAnyOrderElementsOf(payloads);
        assertThat(DrainTestApp.completed.values()).as("no job ran to completion twice")
                .allMatch(n -> n.get() == 1);
    }

    @Test
    void a_handler_outlasting_the_shutdown_phase_is_interrupted_within_it_and_its_job_comes_back() throws Exception {
        String url = newDatabaseUrl("drain_cut");
        DrainTestApp.reset(TimeUnit.MINUTES.toMillis(10));
        // the worker's own drain timeout (30 s by default) is capped by the 2 s shutdown phase
        ConfigurableApplicationContext ctx = start(url, Map.of("spring.lifecycle.timeout-per-shutdown-phase", "2s",
                "rowqueue.work-queues.drain.worker.threads", 1));
        long id = ctx.getBean(ConfiguredQueues.class).workQueue("drain").enqueue("slow");
        eventually("the handler started", () -> DrainTestApp.started.get() == 1);
        ctx.close();

        assertThat(DrainTestApp.interrupted).as("interrupted before the context finished closing")
                .containsOnlyKeys("slow");
        try (RowQueues independent = RowQueues.builder(plain(url)).build()) {
            WorkQueue q = independent.workQueue("drain");
            assertThat(q.stats().ready()).as("given back at once, not left leased").isEqualTo(1);
            List<Job> again = q.claim(1);
            assertThat(again).extracting(Job::id).containsExactly(id);
            assertThat(again.get(0).failures()).as("an interrupt by shutdown is no failed attempt").isZero();
        }
    }

    // ------------------------------------------------------------------ health

    private void purgeDeadLetters() {
        for (QueueInfo q : rowQueues.queues()) {
            if (q.kind() == QueueKind.WORK) {
                rowQueues.workQueue(q.name()).purgeDead();
            }
        }
    }

    private void addDeadLetter(WorkQueue q) {
        q.enqueue("poison");
        List<Job> jobs = q.claim(1);
        assertThat(jobs).hasSize(1);
        q.nack(jobs.get(0), java.time.Duration.ZERO, "always fails");
    }

    @Test
    void health_is_up_then_warns_above_the_dead_letter_threshold_but_is_not_down() {
        purgeDeadLetters();
        WorkQueue q = queues.workQueue("dead_letters"); // max-attempts 1: a nack buries
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);

        addDeadLetter(q);
        assertThat(health.health().getStatus()).as("1 dead letter, threshold 1").isEqualTo(Status.UP);

        addDeadLetter(q);
        Health warning = health.health();
        assertThat(warning.getStatus()).isEqualTo(RowQueueHealthIndicator.WARNING);
        assertThat(warning.getDetails().get("deadLettersAboveThreshold")).isEqualTo(Map.of("dead_letters", 2L));
        assertThat(warning.getDetails()).containsKeys("database", "workQueues", "workers");
        @SuppressWarnings("unchecked")
        Map<String, Object> workers = (Map<String, Object>) warning.getDetails().get("workers");
        assertThat(workers).containsEntry("running", true).containsEntry("declared", 1);

        assertThat(q.purgeDead()).isEqualTo(2);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void health_is_down_when_the_database_is_gone() {
        ConfigurableApplicationContext ctx = start(newDatabaseUrl("health_down"),
                Map.of("rowqueue.workers.auto-startup", false));
        try {
            RowQueueHealthIndicator indicator = ctx.getBean(RowQueueHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            ctx.getBean(HikariDataSource.class).close();
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsKey("error");
        } finally {
            ctx.close();
        }
    }
}
