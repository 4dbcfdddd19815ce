package dev.rowqueue.spring;

import dev.rowqueue.RowQueues;
import dev.rowqueue.WorkQueue;
import dev.rowqueue.micrometer.RowQueueMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * With rowqueue-micrometer and Spring Boot's metrics, the starter meters operations and worker beans, observes each
 * job and registers depth gauges, on H2 with the actuator's {@code SimpleMeterRegistry}.
 */
class StarterMetricsTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class,
                    RowQueueAutoConfiguration.class, RowQueueHealthAutoConfiguration.class,
                    RowQueueMetricsAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:metrics_" + DATABASES.incrementAndGet()
                    + ";DB_CLOSE_DELAY=-1", "rowqueue.work-queues.configured_only.max-attempts=2");

    private static double count(Search search) {
        return search.counters().stream().mapToDouble(c -> c.count()).sum()
                + search.timers().stream().mapToDouble(t -> t.count()).sum();
    }

    @Test
    void operations_worker_beans_jobs_and_depths_are_metered() {
        Set<String> handled = ConcurrentHashMap.newKeySet();
        runner.withBean("mailWorker", WorkerDefinition.class, () -> WorkerDefinition.of("mail",
                        job -> handled.add(job.payload())))
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(RowQueueMetrics.class);
                    MeterRegistry registry = ctx.getBean(MeterRegistry.class);
                    WorkQueue mail = ctx.getBean(ConfiguredQueues.class).workQueue("mail");
                    mail.enqueueAll(List.of("a", "b", "c"), dev.rowqueue.Enqueue.defaults());
                    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                    while (count(registry.find("rowqueue.worker.jobs").tag("queue", "mail")
                            .tag("outcome", "succeeded")) < 3) {
                        if (System.nanoTime() > deadline) {
                            fail("the worker's jobs were not counted within a minute: " + handled);
                        }
                        TimeUnit.MILLISECONDS.sleep(20);
                    }
                    assertThat(count(registry.find("rowqueue.operations").tag("queue", "mail")
                            .tag("operation", "enqueue_all").tag("outcome", "success"))).isEqualTo(1);
                    assertThat(count(registry.find("rowqueue.operation.items").tag("queue", "mail")
                            .tag("operation", "enqueue_all"))).isEqualTo(3);
                    assertThat(count(registry.find("rowqueue.job").tag("queue", "mail")))
                            .as("one observation per job").isEqualTo(3);
                    assertThat(registry.find("rowqueue.queue.jobs").tag("queue", "mail").gauges())
                            .as("depth gauges of the worker's queue").hasSize(4);
                    assertThat(registry.find("rowqueue.queue.jobs").tag("queue", "configured_only").gauges())
                            .as("depth gauges of a configured queue").hasSize(4);
                });
    }

    @Test
    void metrics_can_be_turned_off_and_need_the_module() {
        runner.withPropertyValues("rowqueue.metrics.enabled=false").run(ctx -> {
            assertThat(ctx).hasSingleBean(RowQueues.class);
            assertThat(ctx).doesNotHaveBean(RowQueueMetrics.class);
        });
        runner.withClassLoader(new FilteredClassLoader(RowQueueMetrics.class)).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).hasSingleBean(RowQueues.class);
            assertThat(ctx).doesNotHaveBean(RowQueueWorkerCustomizer.class);
        });
        runner.withPropertyValues("rowqueue.metrics.observe-jobs=false", "rowqueue.metrics.depth-gauges=false")
                .run(ctx -> {
                    assertThat(ctx).hasSingleBean(RowQueueMetrics.class);
                    assertThat(ctx).doesNotHaveBean("rowQueueDepthGauges");
                });
    }
}
