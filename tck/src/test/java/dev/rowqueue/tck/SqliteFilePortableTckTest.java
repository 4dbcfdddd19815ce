package dev.rowqueue.tck;

import java.nio.file.Files;

/**
 * The whole kit on an SQLite file database in WAL mode, served by the portable dialect. A busy timeout makes a
 * writer wait for another instead of failing at once.
 */
class SqliteFilePortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() throws Exception {
        String file = Files.createTempDirectory("rowqueue-sqlite").resolve("tck.db").toString();
        return TckTargets.driverManager("portable dialect on SQLite", "jdbc:sqlite:" + file
                + "?journal_mode=WAL&busy_timeout=30000", null, null)
                .withDialect("portable", "portable dialect on SQLite in a file (WAL)");
    }
}
