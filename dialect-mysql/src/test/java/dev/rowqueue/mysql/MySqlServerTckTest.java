package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/** The whole kit on the MySQL server of {@code ROWQUEUE_TCK_MYSQL_URL}, the dialect's defaults; NOT RUN when unset. */
class MySqlServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.fromEnvironment("MYSQL", "MySQL server", MySqlTargets::pooled);
    }
}
