package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** The whole kit on an existing server named by ROWQUEUE_TCK_POSTGRES_URL; reported NOT RUN when it is unset. */
@EnabledIfEnvironmentVariable(named = PostgresTargets.URL, matches = ".+")
class PostgresServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return PostgresTargets.fromEnvironment();
    }
}
