package dev.rowqueue.testkit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MachineLockTest {

    private final String name = "test-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void removeLockFiles() throws Exception {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "rowqueue-locks");
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(name)).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    @Test
    void slots_are_handed_out_once_each_and_free_again_after_close() {
        try (MachineLock a = MachineLock.slot(name, 2, Duration.ofSeconds(1));
             MachineLock b = MachineLock.slot(name, 2, Duration.ofSeconds(1))) {
            assertEquals(0, a.slot());
            assertEquals(1, b.slot());
            assertThrows(IllegalStateException.class, () -> MachineLock.slot(name, 2, Duration.ofMillis(600)));
            a.close();
            a.close(); // twice is harmless and does not free another holder's slot
            try (MachineLock c = MachineLock.slot(name, 2, Duration.ofSeconds(1))) {
                assertEquals(0, c.slot());
                assertThrows(IllegalStateException.class, () -> MachineLock.slot(name, 2, Duration.ofMillis(600)));
            }
        }
    }

    @Test
    void another_process_holding_the_lock_makes_this_one_wait() throws Exception {
        // a second JVM takes the lock and holds it for two seconds
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path ready = Files.createTempFile("machine-lock", ".ready");
        Files.delete(ready);
        Process holder = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                Holder.class.getName(), name, ready.toString()))
                .inheritIO().start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(ready) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(Files.exists(ready), "the holder never took the lock");
            assertThrows(IllegalStateException.class, () -> MachineLock.acquire(name, Duration.ofMillis(600)));
            try (MachineLock l = MachineLock.acquire(name, Duration.ofSeconds(30))) {
                assertTrue(holder.waitFor(10, TimeUnit.SECONDS), "granted before the holder let go");
                assertEquals(0, l.slot());
            }
        } finally {
            holder.destroyForcibly();
            Files.deleteIfExists(ready);
        }
    }

    /** Takes the lock, says so with a file, holds it for two seconds, and exits (the system releases it). */
    static final class Holder {
        public static void main(String[] args) throws Exception {
            MachineLock.acquire(args[0], Duration.ofSeconds(10));
            Files.createFile(Path.of(args[1]));
            Thread.sleep(2_000);
        }
    }
}
