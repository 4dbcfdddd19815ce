package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/**
 * The whole kit on the MariaDB server of {@code ROWQUEUE_TCK_MARIADB_URL} (a JDBC URL, {@code jdbc:mariadb:} or
 * {@code jdbc:mysql:} picks the driver), with the server's own session settings and the dialect's defaults. NOT RUN
 * when unset.
 */
class MariaDbServerTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.fromEnvironment("MARIADB", "MariaDB server", MySqlTargets::pooled);
    }
}
