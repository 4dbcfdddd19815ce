package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The whole kit on an existing MariaDB server: {@code ROWQUEUE_TCK_MARIADB_URL} (a JDBC URL, {@code jdbc:mariadb:} or
 * {@code jdbc:mysql:} picks the driver), optional {@code ROWQUEUE_TCK_MARIADB_USER} (default root) and
 * {@code _PASSWORD} (default empty). The server's own session settings, the dialect's defaults. NOT RUN when unset.
 */
@EnabledIfEnvironmentVariable(named = "ROWQUEUE_TCK_MARIADB_URL", matches = ".+")
class ExistingMariaDbTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.existing("ROWQUEUE_TCK_MARIADB", "MariaDB server");
    }
}
