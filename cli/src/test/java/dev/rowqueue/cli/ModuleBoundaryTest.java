package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * No module but the API's own uses {@code dev.rowqueue.internal}: tools go through the public API and SPI
 * ({@code RowQueues}, {@code SchemaScripts.of}, {@code DialectProviders}).
 */
class ModuleBoundaryTest {

    @Test
    void main_code_outside_the_api_module_does_not_import_the_internal_package() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> offenders;
        try (Stream<Path> files = Files.walk(root)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/java/"))
                    .filter(p -> !p.startsWith(root.resolve("api")))
                    .filter(p -> !p.toString().contains("/target/"))
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("dev.rowqueue.internal");
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(p -> root.relativize(p).toString()).sorted().toList();
        }
        assertEquals(List.of(), offenders);
    }
}
