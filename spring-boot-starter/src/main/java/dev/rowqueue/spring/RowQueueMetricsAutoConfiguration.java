package dev.rowqueue.spring;

import dev.rowqueue.RowQueues;
import dev.rowqueue.micrometer.ObservedJobHandler;
import dev.rowqueue.micrometer.RowQueueMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Micrometer for rowqueue, when {@code rowqueue-micrometer} is on the class path, a {@link MeterRegistry} bean exists
 * (Spring Boot's actuator makes one) and {@code rowqueue.metrics.enabled} is not {@code false}:
 * <ul>
 *   <li>a {@link RowQueueMetrics} bean on that registry;</li>
 *   <li>registered as the operation listener of the auto-configured {@link RowQueues}: {@code rowqueue.operations}
 *       and {@code rowqueue.operation.items} for every operation (an application's own {@code RowQueues} bean
 *       registers it itself);</li>
 *   <li>on every worker bean, {@link RowQueueMetrics#workerListener(String, dev.rowqueue.WorkerListener) its worker
 *       listener} ({@code rowqueue.worker.*}) in front of the worker's own, and, with an {@link ObservationRegistry}
 *       bean and {@code rowqueue.metrics.observe-jobs} not {@code false}, its handler wrapped in
 *       {@link ObservedJobHandler} (one {@code rowqueue.job} observation, so one span, per job);</li>
 *   <li>queue depth gauges ({@code rowqueue.queue.jobs}) for the work queues named in {@code rowqueue.work-queues.*}
 *       and those of worker beans, refreshed at most once per {@code rowqueue.metrics.depth-refresh}, unless
 *       {@code rowqueue.metrics.depth-gauges=false}.</li>
 * </ul>
 */
@AutoConfiguration(after = RowQueueAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration"})
@ConditionalOnClass({RowQueueMetrics.class, MeterRegistry.class, RowQueues.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "rowqueue.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RowQueueProperties.class)
public class RowQueueMetricsAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(RowQueueMetricsAutoConfiguration.class);

    /** Creates the configuration; Spring does. */
    public RowQueueMetricsAutoConfiguration() {
    }

    /**
     * @param registry the application's registry
     * @return the meters of rowqueue
     */
    @Bean
    @ConditionalOnMissingBean
    public RowQueueMetrics rowQueueMetrics(MeterRegistry registry) {
        return new RowQueueMetrics(registry);
    }

    /**
     * @param metrics the meters
     * @return a customizer registering them as the auto-configured instance's operation listener
     */
    @Bean
    public RowQueuesBuilderCustomizer rowQueueMetricsOperationListener(RowQueueMetrics metrics) {
        return builder -> builder.operationListener(metrics).scheduleListener(metrics);
    }

    /**
     * @param metrics      the meters
     * @param observations the observation registry, if the application has one
     * @param properties   {@code rowqueue.metrics.observe-jobs}
     * @return a customizer metering (and observing) every worker bean
     */
    @Bean
    public RowQueueWorkerCustomizer rowQueueMetricsWorkers(RowQueueMetrics metrics,
                                                           ObjectProvider<ObservationRegistry> observations,
                                                           RowQueueProperties properties) {
        ObservationRegistry observationRegistry = properties.getMetrics().isObserveJobs()
                ? observations.getIfAvailable() : null;
        return worker -> new WorkerDefinition(worker.queue(),
                observationRegistry == null ? worker.handler()
                        : ObservedJobHandler.wrap(observationRegistry, worker.queue().toLowerCase(Locale.ROOT),
                        worker.handler()),
                worker.options().withListener(metrics.workerListener(worker.queue().toLowerCase(Locale.ROOT),
                        worker.options().listener())));
    }

    /**
     * @param metrics     the meters
     * @param queues      the configured queues
     * @param definitions the worker beans, whose queues get gauges too
     * @param properties  {@code rowqueue.metrics.depth-*}
     * @return what registers the depth gauges once every singleton exists
     */
    @Bean
    @ConditionalOnBean(ConfiguredQueues.class)
    @ConditionalOnProperty(prefix = "rowqueue.metrics", name = "depth-gauges", havingValue = "true",
            matchIfMissing = true)
    public SmartInitializingSingleton rowQueueDepthGauges(RowQueueMetrics metrics, ConfiguredQueues queues,
                                                          ObjectProvider<WorkerDefinition> definitions,
                                                          RowQueueProperties properties) {
        return () -> {
            Set<String> names = new LinkedHashSet<>();
            properties.getWorkQueues().keySet().forEach(n -> names.add(n.toLowerCase(Locale.ROOT)));
            definitions.orderedStream().forEach(d -> names.add(d.queue().toLowerCase(Locale.ROOT)));
            for (String name : names) {
                try {
                    metrics.monitorDepth(queues.workQueue(name), properties.getMetrics().getDepthRefresh());
                } catch (RuntimeException e) {
                    log.warn("rowqueue: no depth gauges for work queue {}: {}", name, e.toString());
                }
            }
        };
    }
}
