package dev.rowqueue.tck;

import java.nio.file.Files;

/** The whole kit on an HSQLDB file database, served by the portable dialect. */
class HsqldbFilePortableTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() throws Exception {
        String file = Files.createTempDirectory("rowqueue-hsqldb").resolve("tck").toString();
        return TckTargets.driverManager("portable dialect on HSQLDB in a file", "jdbc:hsqldb:file:" + file, "SA", "")
                .withDialect("portable", "portable dialect on HSQLDB in a file");
    }
}
