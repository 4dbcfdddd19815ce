package dev.rowqueue.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The boundary check on compiled classes: the test fixtures in package {@code boundaries} of this module's tests. */
class BoundariesTest {
    private static final Path CLASSES = Path.of("target/test-classes/boundaries");

    @Test
    void a_class_that_uses_a_forbidden_package_is_named_with_what_it_uses() throws IOException {
        assertTrue(Files.isDirectory(CLASSES), "run from the module's directory after test-compile");
        assertEquals(List.of("GenericOffender uses java.util.zip.Adler32", "Offender uses java.util.zip.CRC32"),
                Boundaries.check(CLASSES, List.of("java.util.zip")));
    }

    @Test
    void the_allowed_class_may_use_it_and_string_constants_do_not_count() throws IOException {
        assertEquals(List.of("GenericOffender uses java.util.zip.Adler32"),
                Boundaries.check(CLASSES, List.of("java.util.zip!Offender")));
        assertEquals(List.of(), Boundaries.check(CLASSES, List.of("java.util.concurrent")));
    }

    @Test
    void a_missing_directory_has_nothing_to_check() throws IOException {
        assertEquals(List.of(), Boundaries.check(CLASSES.resolve("absent"), List.of("java.util.zip")));
    }
}
