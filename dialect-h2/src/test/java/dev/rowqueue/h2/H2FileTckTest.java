package dev.rowqueue.h2;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import dev.rowqueue.testkit.DriverManagerDataSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** The whole kit on an H2 file database under target/, kept open for the run and shut down after it. */
class H2FileTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        String url = "jdbc:h2:file:" + Path.of("target", "h2-tck", "rowqueue").toAbsolutePath() + ";DB_CLOSE_DELAY=-1";
        DriverManagerDataSource ds = new DriverManagerDataSource(url, "sa", "");
        return TckTargets.of("H2 file database", ds, () -> {
            try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        });
    }
}
