package dev.rowqueue.examples.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example starts, runs and stops as the README runs it (its own application.properties, the demo's orders)
 * without logging anything at WARN or ERROR (issue 37, part 4): nothing a new user has to wonder about.
 */
@ExtendWith(OutputCaptureExtension.class)
class QuietStartTest {

    @Test
    void starts_runs_and_stops_without_a_warning(CapturedOutput output) {
        // command-line arguments, as spring-boot:run passes them: they win over application.properties
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ExampleApplication.class)
                .run("--rowqueue.example.orders=10", "--rowqueue.example.order-interval=0s",
                        "--rowqueue.example.send-time=5ms", "--spring.main.keep-alive=false",
                        "--spring.datasource.url=jdbc:h2:mem:quiet-example;DB_CLOSE_DELAY=-1")) {
            Demo demo = context.getBean(Demo.class);
            assertThat(demo.awaitEnd(Duration.ZERO)).isZero();
        }
        List<String> loud = output.getAll().lines().filter(l -> l.matches(".*\\b(WARN|ERROR)\\b.*")).toList();
        assertThat(loud).as("lines at WARN or ERROR:\n" + output.getAll()).isEmpty();
    }
}
