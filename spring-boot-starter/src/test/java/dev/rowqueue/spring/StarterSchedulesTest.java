package dev.rowqueue.spring;

import dev.rowqueue.MissedSlots;
import dev.rowqueue.RowQueues;
import dev.rowqueue.ScheduleConflictException;
import dev.rowqueue.ScheduleInfo;
import dev.rowqueue.ScheduleOptions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** rowqueue.schedules.* and ScheduleDefinition beans, defined at startup; the scheduler runs and fires them. */
class StarterSchedulesTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        RowQueueAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:schedules_" + DATABASES.incrementAndGet()
                        + ";DB_CLOSE_DELAY=-1");
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        ScheduleDefinition ticks() {
            return ScheduleDefinition.of("ticks", "rate:PT0.1S", ScheduleOptions.forQueue("tick_jobs").withPayload("{slot}"));
        }
    }

    @Test
    void properties_and_beans_are_defined_at_startup_and_fired() {
        runner().withUserConfiguration(Beans.class).withPropertyValues(
                        "rowqueue.scheduler.poll-interval=20ms",
                        "rowqueue.schedules.nightly.schedule=0 2 * * *",
                        "rowqueue.schedules.nightly.queue=reports",
                        "rowqueue.schedules.nightly.zone=Europe/Berlin",
                        "rowqueue.schedules.nightly.missed=EACH:2",
                        "rowqueue.schedules.nightly.payload=report {slot}")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RowQueues rq = context.getBean(RowQueues.class);
                    ScheduleInfo nightly = rq.schedules().get("nightly").orElseThrow();
                    assertThat(nightly.schedule().toString()).isEqualTo("cron:0 2 * * *@Europe/Berlin");
                    assertThat(nightly.options().missed()).isEqualTo(MissedSlots.each(2));
                    assertThat(nightly.options().payload()).isEqualTo("report {slot}");
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (rq.workQueue("tick_jobs").stats().total() < 3 && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    assertThat(rq.workQueue("tick_jobs").stats().total()).as("the scheduler fired").isGreaterThanOrEqualTo(3);
                });
    }

    @Test
    void a_different_stored_definition_fails_startup_unless_replace_is_set() {
        String url = "spring.datasource.url=jdbc:h2:mem:schedules_conflict_" + DATABASES.incrementAndGet()
                + ";DB_CLOSE_DELAY=-1";
        ApplicationContextRunner r = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
                DataSourceAutoConfiguration.class, RowQueueAutoConfiguration.class)).withPropertyValues(url,
                "rowqueue.scheduler.enabled=false", "rowqueue.schedules.s.queue=q");
        r.withPropertyValues("rowqueue.schedules.s.schedule=@daily").run(c -> assertThat(c).hasNotFailed());
        r.withPropertyValues("rowqueue.schedules.s.schedule=@hourly").run(c -> assertThat(
                org.springframework.core.NestedExceptionUtils.getMostSpecificCause(c.getStartupFailure()))
                .isInstanceOf(ScheduleConflictException.class).hasMessageContaining("another definition"));
        r.withPropertyValues("rowqueue.schedules.s.schedule=@hourly", "rowqueue.schedules.s.replace=true").run(c -> {
            assertThat(c).hasNotFailed();
            assertThat(c.getBean(RowQueues.class).schedules().get("s").orElseThrow().schedule().toString())
                    .isEqualTo("cron:0 * * * *@UTC");
        });
    }
}
