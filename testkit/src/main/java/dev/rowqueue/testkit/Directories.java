package dev.rowqueue.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of the embedded servers. */
final class Directories {
    private Directories() {
    }

    /**
     * Deletes a directory and what it holds, as far as it can.
     *
     * @param dir the directory
     */
    static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory; the OS cleans it eventually
        }
    }
}
