package dev.rowqueue.spring;

import dev.rowqueue.RetryPolicy;
import dev.rowqueue.RowQueues;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * Auto-configures rowqueue on the application's {@link DataSource}:
 * <ul>
 *   <li>a {@link RowQueues} (dialect detected from the database, as {@link RowQueues#builder} does) with the
 *       {@code rowqueue.*} properties ({@link RowQueueProperties}) and every {@link RowQueuesBuilderCustomizer}
 *       bean, whose operations join the caller's Spring-managed transaction ({@link SpringTransactionBinding},
 *       unless {@code rowqueue.transactions.join=false}); closed with the context, never the data source;</li>
 *   <li>{@link ConfiguredQueues}, queue handles with the configured per-queue options;</li>
 *   <li>{@link RowQueueWorkers}, which runs the {@link WorkerDefinition} beans with the context, each adjusted by
 *       the {@link RowQueueWorkerCustomizer} beans;</li>
 *   <li>{@link RowQueueSchedules}, which defines the {@link ScheduleDefinition} beans and the
 *       {@code rowqueue.schedules.*} schedules at startup and starts the scheduler ({@code rowqueue.scheduler.*}).</li>
 * </ul>
 * Each bean backs off when the application defines its own. Active when there is a single candidate
 * {@code DataSource}, spring-jdbc is on the class path and {@code rowqueue.enabled} is not {@code false}.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({RowQueues.class, DataSource.class, DataSourceUtils.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "rowqueue", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RowQueueProperties.class)
public class RowQueueAutoConfiguration {

    /** Creates the configuration; Spring does. */
    public RowQueueAutoConfiguration() {
    }

    /**
     * @param dataSource  the application's data source; a {@link TransactionAwareDataSourceProxy} is unwrapped, since
     *                    through it rowqueue would commit the caller's transaction
     * @param properties  {@code rowqueue.*}
     * @param customizers applied in order after the properties
     * @return the instance, closed with the context
     */
    @Bean
    @ConditionalOnMissingBean
    public RowQueues rowQueues(DataSource dataSource, RowQueueProperties properties,
                               ObjectProvider<RowQueuesBuilderCustomizer> customizers) {
        RowQueues.Builder b = RowQueues.builder(unwrap(dataSource))
                .createSchema(properties.isCreateSchema())
                .recordActivity(properties.isRecordActivity())
                .pollInterval(properties.getPollInterval());
        if (properties.getClaimConcurrency() != null) {
            b.claimConcurrency(properties.getClaimConcurrency());
        }
        if (properties.getMaxPayloadLength() != null) {
            b.maxPayloadLength(properties.getMaxPayloadLength());
        }
        if (properties.getDialect() != null && !properties.getDialect().isBlank()) {
            b.dialect(properties.getDialect());
        }
        properties.getDialectOptions().forEach(b::dialectOption);
        RetryPolicy retry = properties.getRetry().toPolicy();
        if (retry != null) {
            b.retry(retry);
        }
        RowQueueProperties.Scheduler scheduler = properties.getScheduler();
        b.scheduler(!Boolean.FALSE.equals(scheduler.getEnabled())).schedulerPollInterval(scheduler.getPollInterval());
        if (properties.getTransactions().isJoin()) {
            b.transactionBinding(new SpringTransactionBinding());
        }
        customizers.orderedStream().forEach(c -> c.customize(b));
        return b.build();
    }

    /**
     * @param rowQueues  the instance
     * @param properties the per-queue options
     * @return queue handles by name with their configured options
     */
    @Bean
    @ConditionalOnMissingBean
    public ConfiguredQueues configuredQueues(RowQueues rowQueues, RowQueueProperties properties) {
        return new ConfiguredQueues(rowQueues, properties);
    }

    /**
     * @param queues      the queues workers run on
     * @param definitions the workers declared as beans
     * @param customizers applied in order to each worker's definition
     * @param properties  {@code rowqueue.workers.*}
     * @param environment where {@code spring.lifecycle.timeout-per-shutdown-phase} is read
     * @return the lifecycle that starts and drains the workers
     */
    @Bean
    @ConditionalOnMissingBean
    public RowQueueWorkers rowQueueWorkers(ConfiguredQueues queues, ObjectProvider<WorkerDefinition> definitions,
                                           ObjectProvider<RowQueueWorkerCustomizer> customizers,
                                           RowQueueProperties properties, Environment environment) {
        Duration phase = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        return new RowQueueWorkers(queues, definitions.orderedStream().toList(), customizers.orderedStream().toList(),
                properties.getWorkers().isAutoStartup(), phase);
    }

    /**
     * @param queues      the queues schedules enqueue into
     * @param definitions the schedules declared as beans
     * @param properties  {@code rowqueue.schedules.*} and {@code rowqueue.scheduler.*}
     * @return what defines the schedules at startup and starts the scheduler
     */
    @Bean
    @ConditionalOnMissingBean
    public RowQueueSchedules rowQueueSchedules(ConfiguredQueues queues,
                                               ObjectProvider<ScheduleDefinition> definitions,
                                               RowQueueProperties properties) {
        return new RowQueueSchedules(queues, definitions.orderedStream().toList(), properties);
    }

    private static DataSource unwrap(DataSource dataSource) {
        DataSource ds = dataSource;
        while (ds instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            ds = proxy.getTargetDataSource();
        }
        return ds;
    }
}
