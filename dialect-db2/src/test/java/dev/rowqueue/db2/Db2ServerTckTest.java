package dev.rowqueue.db2;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The whole kit on an existing Db2 LUW server: {@code ROWQUEUE_TCK_DB2_URL} (a full JDBC URL, e.g.
 * {@code jdbc:db2://localhost:50000/test}), {@code ROWQUEUE_TCK_DB2_USER}, {@code ROWQUEUE_TCK_DB2_PASSWORD}.
 * Reported NOT RUN when the URL is not set.
 */
@EnabledIfEnvironmentVariable(named = "ROWQUEUE_TCK_DB2_URL", matches = ".+")
class Db2ServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("Db2 server (ROWQUEUE_TCK_DB2_URL)", System.getenv("ROWQUEUE_TCK_DB2_URL"),
                System.getenv("ROWQUEUE_TCK_DB2_USER"), System.getenv("ROWQUEUE_TCK_DB2_PASSWORD"));
    }
}
