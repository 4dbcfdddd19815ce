package dev.rowqueue.tck;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The example in {@link RowQueueTck}'s class comment is real code: the nested class below, word for word (it is a
 * static member class, so no build runs it as a test of its own), and dialect-h2's {@code H2InMemoryTckTest}, which
 * runs the whole kit on every build.
 */
class RowQueueTckExampleTest {

    /** RowQueueTck's class comment shows this class; keep the two the same. */
    static class H2InMemoryTckTest extends RowQueueTck {
        @Override
        protected TckTarget target() {
            return TckTargets.driverManager("H2 in memory", "jdbc:h2:mem:rowqueue_tck;DB_CLOSE_DELAY=-1", "sa", "");
        }
    }

    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "rowqueue", "tck");

    /** @return the example of RowQueueTck's class comment, without the comment's leading asterisks */
    private static String documented() throws Exception {
        String source = Files.readString(Path.of("src", "main", "java", "dev", "rowqueue", "tck", "RowQueueTck.java"));
        Matcher m = Pattern.compile("<pre>\\{@code\\n(.*?)\\n \\* }</pre>", Pattern.DOTALL).matcher(source);
        assertTrue(m.find(), "RowQueueTck's class comment has an example");
        return m.group(1).replaceAll("(?m)^ \\* ?", "");
    }

    @Test
    void the_documented_example_is_this_compiled_class_word_for_word() throws Exception {
        String here = Files.readString(SOURCES.resolve("RowQueueTckExampleTest.java"));
        Matcher m = Pattern.compile("\\n    static (class H2InMemoryTckTest .*?\\n    })\\n", Pattern.DOTALL).matcher(here);
        assertTrue(m.find(), "the nested example class");
        assertEquals(documented(), m.group(1).replaceAll("(?m)^    ", ""));
    }

    @Test
    void the_documented_example_is_dialect_h2s_in_memory_target() throws Exception {
        Path h2 = Path.of("..", "dialect-h2", "src", "test", "java", "dev", "rowqueue", "h2", "H2InMemoryTckTest.java");
        assertTrue(Files.readString(h2).contains(documented()), "dialect-h2's H2InMemoryTckTest is the example");
    }

    @Test
    void the_documented_example_opens_an_h2_database() throws Exception {
        try (TckTarget target = new H2InMemoryTckTest().target();
             Connection c = target.dataSource().getConnection()) {
            assertEquals("H2 in memory", target.name());
            assertEquals("H2", c.getMetaData().getDatabaseProductName());
        }
    }
}
