package dev.rowqueue.oracle;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The whole kit on an existing Oracle server: {@code ROWQUEUE_TCK_ORACLE_URL} (a full JDBC URL, e.g.
 * {@code jdbc:oracle:thin:@//localhost:1521/freepdb1}), {@code ROWQUEUE_TCK_ORACLE_USER},
 * {@code ROWQUEUE_TCK_ORACLE_PASSWORD}. Reported NOT RUN when the URL is not set.
 */
@EnabledIfEnvironmentVariable(named = "ROWQUEUE_TCK_ORACLE_URL", matches = ".+")
class OracleServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("Oracle server (ROWQUEUE_TCK_ORACLE_URL)", System.getenv("ROWQUEUE_TCK_ORACLE_URL"),
                System.getenv("ROWQUEUE_TCK_ORACLE_USER"), System.getenv("ROWQUEUE_TCK_ORACLE_PASSWORD"));
    }
}
