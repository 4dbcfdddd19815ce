package dev.rowqueue.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The web application the console's starter tests run: auto-configuration only, no component scanning. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ConsoleTestApp {
}
