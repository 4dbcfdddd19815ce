package dev.rowqueue.spring;

import dev.rowqueue.Job;
import dev.rowqueue.JobHandler;
import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RingQueue;
import dev.rowqueue.RingStrategy;
import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.WorkQueueOptions;
import dev.rowqueue.WorkerListener;
import dev.rowqueue.WorkerOptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.SimpleStatusAggregator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.actuate.health.StatusAggregator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The auto-configuration's wiring on H2, in light contexts: properties reach the builder and the queues, beans back
 * off, conditions hold, a transaction-aware data source proxy cannot make rowqueue commit the caller's transaction,
 * and the configuration metadata lists the properties.
 */
class StarterConfigurationTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class, RowQueueAutoConfiguration.class,
                    RowQueueHealthAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:config_" + DATABASES.incrementAndGet()
                    + ";DB_CLOSE_DELAY=-1");

    @Test
    void properties_reach_the_instance_the_queues_and_the_workers() {
        runner.withPropertyValues(
                        "rowqueue.max-payload-length=500",
                        "rowqueue.claim-concurrency=3",
                        "rowqueue.retry.max-attempts=2",
                        "rowqueue.work-queues.emails.lease=2m",
                        "rowqueue.work-queues.emails.max-attempts=7",
                        "rowqueue.work-queues.emails.retry-backoff=1s",
                        "rowqueue.work-queues.emails.worker.threads=3",
                        "rowqueue.work-queues.emails.worker.drain-timeout=5s",
                        "rowqueue.work-queues.emails.worker.prefetch=1",
                        "rowqueue.work-queues.emails.worker.prefetch-window=50ms",
                        "rowqueue.work-queues.fixed.worker.prefetch=2",
                        "rowqueue.work-queues[order_events].max-attempts=3",
                        "rowqueue.work-queues.tenants.max-leased-per-key=1",
                        "rowqueue.work-queues.tenants.fair-claims=true",
                        "rowqueue.work-queues.partner_api.rate-limit=50",
                        "rowqueue.work-queues.partner_api.rate-window=1s",
                        "rowqueue.work-queues.half_set.rate-limit=50",
                        "rowqueue.work-queues.too_fast.rate-limit=0",
                        "rowqueue.work-queues.too_fast.rate-window=1s",
                        "rowqueue.rings.recent.capacity=3",
                        "rowqueue.rings.recent.strategy=single-writer")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    RowQueues rq = ctx.getBean(RowQueues.class);
                    assertThat(rq.database().maxPayloadLength()).isEqualTo(500);
                    assertThat(rq.database().dialect()).isEqualTo("h2");

                    ConfiguredQueues queues = ctx.getBean(ConfiguredQueues.class);
                    assertThat(queues.workQueue("emails").options()).isEqualTo(WorkQueueOptions.defaults()
                            .withMaxAttempts(7).withLeaseDuration(Duration.ofMinutes(2))
                            .withRetryBackoff(Duration.ofSeconds(1), WorkQueueOptions.defaults().maxRetryDelay()));
                    assertThat(queues.workQueue("EMAILS")).as("names fold to lower case")
                            .isSameAs(queues.workQueue("emails"));
                    assertThat(queues.workQueue("order_events").options().maxAttempts()).isEqualTo(3);
                    assertThat(queues.workQueue("tenants").options()).isEqualTo(WorkQueueOptions.defaults()
                            .withMaxLeasedPerKey(1).withFairClaims(true));
                    assertThat(queues.workQueue("unconfigured").options()).isEqualTo(WorkQueueOptions.defaults());
                    assertThat(queues.workQueue("partner_api").options()).isEqualTo(WorkQueueOptions.defaults()
                            .withRateLimit(50, Duration.ofSeconds(1)));
                    assertThatThrownBy(() -> queues.workQueue("half_set"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("rowqueue.work-queues.half_set: rate-limit and rate-window are set"
                                    + " together");
                    assertThatThrownBy(() -> queues.workQueue("too_fast"))
                            .hasMessageContaining("rowqueue.work-queues.too_fast: a rate limit's window must be");

                    WorkerOptions w = queues.workerOptions("emails");
                    assertThat(w.threads()).isEqualTo(3);
                    assertThat(w.drainTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(w.prefetch()).isEqualTo(1);
                    assertThat(w.prefetchWindow()).isEqualTo(Duration.ofMillis(50));
                    WorkerOptions fixed = queues.workerOptions("fixed");
                    assertThat(fixed.prefetch()).isEqualTo(2);
                    assertThat(fixed.prefetchWindow()).as("a prefetch set alone is fixed").isNull();
                    assertThat(queues.workerOptions("unconfigured").threads())
                            .isEqualTo(WorkerOptions.defaults().threads());

                    RingQueue ring = queues.ring("recent");
                    assertThat(ring.capacity()).isEqualTo(3);
                    assertThat(ring.strategy()).isEqualTo(RingStrategy.SINGLE_WRITER);
                    for (int i = 0; i < 5; i++) {
                        ring.push("g", "view " + i);
                    }
                    assertThat(ring.size("g")).isEqualTo(3);
                    assertThatThrownBy(() -> queues.ring("unknown_ring"))
                            .hasMessageContaining("rowqueue.rings.unknown_ring.capacity");
                });
    }

    @Test
    void retry_properties_fill_in_the_defaults() {
        RowQueueProperties.Retry retry = new RowQueueProperties.Retry();
        assertThat(retry.toPolicy()).as("nothing set: the dialect's policy").isNull();
        retry.setMaxAttempts(2);
        assertThat(retry.toPolicy()).isEqualTo(new RetryPolicy(2, RetryPolicy.defaults().initialBackoff(),
                RetryPolicy.defaults().maxBackoff()));
    }

    @Test
    void record_activity_false_writes_no_activity_and_the_default_does() {
        for (boolean record : new boolean[] {true, false}) {
            String url = "jdbc:h2:mem:activity_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
            runner.withPropertyValues("spring.datasource.url=" + url)
                    .withPropertyValues(record ? new String[0] : new String[] {"rowqueue.record-activity=false"})
                    .run(ctx -> {
                        WorkQueue q = ctx.getBean(RowQueues.class).workQueue("counted").create();
                        q.enqueue("one");
                        q.enqueue("two");
                    }); // closing the context closes RowQueues, which writes what it counted
            try (RowQueues reader = RowQueues.builder(new DriverManagerDataSource(url, "sa", "")).recordActivity(false).build()) {
                assertThat(reader.workQueue("counted").activity().totalEnqueued())
                        .as("rowqueue.record-activity " + record).isEqualTo(record ? 2 : 0);
            }
        }
    }

    @Test
    void a_builder_customizer_runs_after_the_properties() {
        runner.withPropertyValues("rowqueue.max-payload-length=500")
                .withBean(RowQueuesBuilderCustomizer.class, () -> b -> b.maxPayloadLength(100))
                .run(ctx -> assertThat(ctx.getBean(RowQueues.class).database().maxPayloadLength()).isEqualTo(100));
    }

    @Test
    void disabled_by_property_nothing_is_configured() {
        runner.withPropertyValues("rowqueue.enabled=false").run(ctx -> {
            assertThat(ctx).doesNotHaveBean(RowQueues.class);
            assertThat(ctx).doesNotHaveBean(RowQueueWorkers.class);
            assertThat(ctx).doesNotHaveBean(RowQueueHealthIndicator.class);
        });
    }

    @Test
    void without_a_data_source_nothing_is_configured() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RowQueueAutoConfiguration.class,
                        RowQueueHealthAutoConfiguration.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(RowQueues.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRowQueues {
        @Bean
        RowQueues myRowQueues(DataSource dataSource) {
            return RowQueues.builder(dataSource).maxPayloadLength(42).build();
        }
    }

    @Test
    void an_application_rowqueues_bean_is_used_instead() {
        runner.withUserConfiguration(OwnRowQueues.class).run(ctx -> {
            assertThat(ctx).hasSingleBean(RowQueues.class);
            assertThat(ctx.getBean(ConfiguredQueues.class).rowQueues().database().maxPayloadLength()).isEqualTo(42);
            assertThat(ctx).hasSingleBean(RowQueueHealthIndicator.class);
        });
    }

    @Test
    void the_health_indicator_needs_the_actuator_and_can_be_turned_off() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(ctx -> {
            assertThat(ctx).hasSingleBean(RowQueues.class);
            assertThat(ctx).doesNotHaveBean(RowQueueHealthIndicator.class);
        });
        runner.withPropertyValues("management.health.rowqueue.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(RowQueueHealthIndicator.class));
        runner.run(ctx -> assertThat(ctx).hasBean("rowqueueHealthIndicator"));
    }

    @Test
    void warning_counts_in_the_overall_status_only_where_the_status_order_lists_it() {
        // what docs/spring-boot.md says: Spring Boot's default order ignores a status it does not know
        assertThat(StatusAggregator.getDefault().getAggregateStatus(Status.UP, RowQueueHealthIndicator.WARNING))
                .isEqualTo(Status.UP);
        assertThat(new SimpleStatusAggregator("down", "out-of-service", "warning", "up", "unknown")
                .getAggregateStatus(Status.UP, RowQueueHealthIndicator.WARNING))
                .isEqualTo(RowQueueHealthIndicator.WARNING);
    }

    @Test
    void workers_can_be_left_stopped_and_started_by_hand() {
        runner.withPropertyValues("rowqueue.workers.auto-startup=false")
                .withBean("w", WorkerDefinition.class, () -> WorkerDefinition.of("later", job -> { })
                        .withOptions(WorkerOptions.defaults().withThreads(1)))
                .run(ctx -> {
                    RowQueueWorkers workers = ctx.getBean(RowQueueWorkers.class);
                    assertThat(workers.isRunning()).isFalse();
                    assertThat(workers.workers()).isEmpty();
                    workers.start();
                    assertThat(workers.workers()).extracting(RowQueueWorkers.Status::queue).containsExactly("later");
                    workers.stop();
                    assertThat(workers.isRunning()).isFalse();
                    workers.start();
                    assertThat(workers.isRunning()).as("started again, with new workers").isTrue();
                });
    }

    @Test
    void worker_customizers_see_the_resolved_options_and_apply_to_every_worker() {
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger started = new AtomicInteger();
        CountDownLatch ran = new CountDownLatch(2);
        runner.withPropertyValues("rowqueue.work-queues.configured.worker.threads=3")
                .withBean("a", WorkerDefinition.class, () -> WorkerDefinition.of("configured", job -> ran.countDown()))
                .withBean("b", WorkerDefinition.class, () -> WorkerDefinition.of("explicit", job -> ran.countDown())
                        .withOptions(WorkerOptions.defaults().withThreads(1)))
                .withBean(RowQueueWorkerCustomizer.class, () -> w -> {
                    seen.add(w.queue() + ":" + w.options().threads());
                    JobHandler inner = w.handler();
                    WorkerListener counting = new WorkerListener() {
                        @Override
                        public void started(Job job, Duration waiting) {
                            started.incrementAndGet();
                        }
                    };
                    return new WorkerDefinition(w.queue(), job -> {
                        seen.add("wrapped " + job.payload());
                        inner.handle(job);
                    }, w.options().withListener(counting));
                })
                .run(ctx -> {
                    ConfiguredQueues queues = ctx.getBean(ConfiguredQueues.class);
                    queues.workQueue("configured").enqueue("one");
                    queues.workQueue("explicit").enqueue("two");
                    assertThat(ran.await(1, TimeUnit.MINUTES)).as("both handlers ran").isTrue();
                    assertThat(seen).contains("configured:3", "explicit:1", "wrapped one", "wrapped two");
                    assertThat(started.get()).as("the customizer's listener was told").isEqualTo(2);
                });
    }

    /** The application's data source is a transaction-aware proxy of the pool. */
    @Configuration(proxyBeanMethods = false)
    static class TransactionAwareDataSource {
        static final String URL = "jdbc:h2:mem:tx_aware_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";

        @Bean
        DataSource dataSource() {
            return new TransactionAwareDataSourceProxy(new DriverManagerDataSource(URL, "sa", ""));
        }
    }

    @Test
    void a_transaction_aware_data_source_proxy_cannot_make_rowqueue_commit_the_callers_transaction() {
        runner.withUserConfiguration(TransactionAwareDataSource.class)
                .withPropertyValues("rowqueue.transactions.join=false")
                .run(ctx -> {
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    jdbc.execute("CREATE TABLE orders (id INT PRIMARY KEY)");
                    var q = ctx.getBean(ConfiguredQueues.class).workQueue("not_joined");
                    TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
                    assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                        jdbc.update("INSERT INTO orders VALUES (1)");
                        q.enqueue("own transaction");
                        throw new IllegalStateException("rolled back");
                    })).hasMessage("rolled back");
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class))
                            .as("the caller's insert rolled back: rowqueue did not commit its transaction").isZero();
                    assertThat(q.stats().total()).as("not joined: the job committed on its own").isEqualTo(1);
                });
    }

    @Test
    void the_configuration_metadata_lists_the_properties() throws IOException {
        String json;
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String name : List.of("rowqueue.enabled", "rowqueue.create-schema", "rowqueue.record-activity", "rowqueue.claim-concurrency",
                "rowqueue.poll-interval", "rowqueue.max-payload-length", "rowqueue.dialect",
                "rowqueue.dialect-options", "rowqueue.retry.max-attempts", "rowqueue.transactions.join",
                "rowqueue.work-queues", "rowqueue.rings", "rowqueue.workers.auto-startup",
                "rowqueue.health.dead-letter-threshold", "rowqueue.metrics.enabled", "rowqueue.metrics.observe-jobs",
                "rowqueue.metrics.depth-gauges", "rowqueue.metrics.depth-refresh")) {
            assertThat(json).contains("\"name\": \"" + name + "\"");
        }
    }
}
