package dev.rowqueue.micrometer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** This module uses rowqueue's public API only (the command line's ModuleBoundaryTest checks every module too). */
class ModuleBoundaryTest {

    @Test
    void main_code_does_not_use_the_internal_package() throws IOException {
        Path main = Path.of("src/main/java");
        assertThat(main).isDirectory();
        List<Path> offenders;
        try (Stream<Path> files = Files.walk(main)) {
            offenders = files.filter(p -> p.toString().endsWith(".java")).filter(p -> {
                try {
                    return Files.readString(p).contains("dev.rowqueue.internal");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
        assertThat(offenders).isEmpty();
    }
}
