package dev.rowqueue.db2;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/**
 * The whole kit on the Db2 LUW server of {@code ROWQUEUE_TCK_DB2_URL} (e.g. {@code jdbc:db2://localhost:50000/test}),
 * through DriverManager; NOT RUN when unset.
 */
class Db2ServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.fromEnvironment("DB2", "Db2 server");
    }
}
