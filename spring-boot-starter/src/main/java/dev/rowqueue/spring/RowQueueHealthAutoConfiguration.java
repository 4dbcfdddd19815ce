package dev.rowqueue.spring;

import dev.rowqueue.RowQueues;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link RowQueueHealthIndicator}, when Spring Boot's actuator is on the class path, a {@link RowQueues} bean
 * exists and {@code management.health.rowqueue.enabled} is not {@code false}.
 */
@AutoConfiguration(after = RowQueueAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(RowQueues.class)
@ConditionalOnEnabledHealthIndicator("rowqueue")
@EnableConfigurationProperties(RowQueueProperties.class)
public class RowQueueHealthAutoConfiguration {

    /** Creates the configuration; Spring does. */
    public RowQueueHealthAutoConfiguration() {
    }

    /**
     * @param rowQueues  the instance to check
     * @param workers    the workers declared as beans, if the starter manages them
     * @param properties {@code rowqueue.health.*}
     * @return the indicator, named {@code rowqueue}
     */
    @Bean
    @ConditionalOnMissingBean(name = "rowqueueHealthIndicator")
    public RowQueueHealthIndicator rowqueueHealthIndicator(RowQueues rowQueues,
                                                           ObjectProvider<RowQueueWorkers> workers,
                                                           RowQueueProperties properties) {
        return new RowQueueHealthIndicator(rowQueues, workers.getIfAvailable(),
                properties.getHealth().getDeadLetterThreshold());
    }
}
