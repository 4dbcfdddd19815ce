package dev.rowqueue.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An H2 file opened with another user than the one that created it: the message says so (issue 37, part 4). */
class H2UserTest {

    @Test
    void a_file_created_with_sa_and_opened_with_another_user_names_the_cause(@TempDir Path dir) {
        String url = "jdbc:h2:file:" + dir.resolve("app").toAbsolutePath();
        Cli.Result created = Cli.run("work", "enqueue", "mail", "hello", "--create", "--url", url, "--user", "sa");
        assertEquals(0, created.code(), created::toString);

        Cli.Result other = Cli.run("queues", "--url", url, "--user", "app");
        assertEquals(ExitCode.DATABASE, other.code(), other::toString);
        assertTrue(other.err().contains("Wrong user name or password"), other.err());
        assertTrue(other.err().contains("if it was created with another user than 'app', give that user with --user"),
                other.err());

        Cli.Result none = Cli.run("queues", "--url", url);
        assertEquals(ExitCode.DATABASE, none.code(), none::toString);
        assertTrue(none.err().contains("another user than the empty one"), none.err());

        Cli.Result right = Cli.run("queues", "--url", url, "--user", "sa");
        assertEquals(0, right.code(), right::toString);
        assertFalse(right.err().contains("another user"), right.err());
    }
}
