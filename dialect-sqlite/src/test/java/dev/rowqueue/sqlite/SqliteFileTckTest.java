package dev.rowqueue.sqlite;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The whole kit on a new SQLite file database in WAL mode under target/, one new connection per request. */
class SqliteFileTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() throws IOException {
        Path db = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "sqlite-tck").resolve("tck.db");
        return TckTargets.driverManager("SQLite file (WAL)", "jdbc:sqlite:" + db + "?journal_mode=WAL", null, null);
    }
}
