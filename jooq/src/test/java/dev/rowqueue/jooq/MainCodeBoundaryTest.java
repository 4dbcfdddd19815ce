package dev.rowqueue.jooq;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This module's main code uses rowqueue's public API only, never {@code dev.rowqueue.internal} (the command line's
 * {@code ModuleBoundaryTest} checks every module; this one runs in this module's own build).
 */
class MainCodeBoundaryTest {

    @Test
    void main_code_does_not_use_the_internal_package() throws IOException {
        Path main = Path.of("src/main/java");
        assertTrue(Files.isDirectory(main), "run from the module's directory: " + main.toAbsolutePath());
        List<String> offenders;
        try (Stream<Path> files = Files.walk(main)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("dev.rowqueue.internal");
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .map(p -> main.relativize(p).toString()).sorted().toList();
        }
        assertEquals(List.of(), offenders);
    }
}
