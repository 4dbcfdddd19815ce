package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The whole kit on an existing MySQL server: {@code ROWQUEUE_TCK_MYSQL_URL} (a JDBC URL), optional
 * {@code ROWQUEUE_TCK_MYSQL_USER} (default root) and {@code _PASSWORD} (default empty). NOT RUN when unset.
 */
@EnabledIfEnvironmentVariable(named = "ROWQUEUE_TCK_MYSQL_URL", matches = ".+")
class ExistingMySqlTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.existing("ROWQUEUE_TCK_MYSQL", "MySQL server");
    }
}
