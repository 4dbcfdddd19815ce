package dev.rowqueue.oracle;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/**
 * The whole kit on the Oracle server of {@code ROWQUEUE_TCK_ORACLE_URL} (e.g.
 * {@code jdbc:oracle:thin:@//localhost:1521/freepdb1}), through DriverManager; NOT RUN when unset.
 */
class OracleServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.fromEnvironment("ORACLE", "Oracle server");
    }
}
