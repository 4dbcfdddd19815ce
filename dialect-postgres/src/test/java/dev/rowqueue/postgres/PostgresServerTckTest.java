package dev.rowqueue.postgres;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/** The whole kit on the PostgreSQL server of ROWQUEUE_TCK_POSTGRES_URL, behind a pool; NOT RUN when it is unset. */
class PostgresServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.fromEnvironment("POSTGRES", "PostgreSQL server", PostgresTargets::pooled);
    }
}
