package dev.rowqueue.cli;

import dev.rowqueue.internal.DialectResolver;
import dev.rowqueue.spi.DialectProvider;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The jar bundles every dialect module of the repository: each provider declared by a {@code dialect-*} module is
 * found by ServiceLoader on this module's class path. When a dialect module joins the build, this fails until its
 * artifact is added to cli/pom.xml.
 */
class BundledDialectsTest {

    @Test
    void every_dialect_module_of_the_repository_is_on_the_command_lines_class_path() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<String> declared = new ArrayList<>();
        List<String> modules = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path module : dirs.filter(d -> d.getFileName().toString().startsWith("dialect-")).sorted().toList()) {
                Path services = module.resolve("src/main/resources/META-INF/services/"
                        + DialectProvider.class.getName());
                if (Files.exists(services)) {
                    modules.add(module.getFileName().toString());
                    Files.readAllLines(services).stream().map(l -> l.replaceAll("#.*", "").strip())
                            .filter(l -> !l.isEmpty()).forEach(declared::add);
                }
            }
        }
        assertTrue(modules.contains("dialect-h2"), "found the repository's dialect modules under " + root);
        Set<String> found = DialectResolver.discovered().stream().map(p -> p.getClass().getName())
                .collect(Collectors.toSet());
        List<String> missing = declared.stream().filter(c -> !found.contains(c)).toList();
        assertEquals(List.of(), missing, "dialect modules " + modules + " declare providers the command line does"
                + " not bundle: add their artifacts to cli/pom.xml");
    }
}
