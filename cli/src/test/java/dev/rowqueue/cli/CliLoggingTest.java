package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Third-party loggers stay quiet in the command line unless --verbose (issue 24, item 5). */
class CliLoggingTest {

    private static String run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), LoggingProbe.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), output);
        return output;
    }

    @Test
    void drivers_log_only_errors_and_rowqueue_its_warnings() throws Exception {
        String out = run("queues", "--url", "jdbc:h2:mem:x");
        assertFalse(out.contains("driver warning"), out);
        assertFalse(out.contains("pool info"), out);
        assertFalse(out.contains("jul driver warning"), out);
        assertFalse(out.contains("rowqueue info"), out);
        assertTrue(out.contains("driver error"), out);
        assertTrue(out.contains("rowqueue warning"), out);
    }

    @Test
    void verbose_shows_them() throws Exception {
        String out = run("queues", "--verbose", "--url", "jdbc:h2:mem:x");
        assertTrue(out.contains("driver warning"), out);
        assertTrue(out.contains("pool info"), out);
        assertTrue(out.contains("jul driver warning"), out);
        assertTrue(out.contains("rowqueue info"), out);
    }
}
