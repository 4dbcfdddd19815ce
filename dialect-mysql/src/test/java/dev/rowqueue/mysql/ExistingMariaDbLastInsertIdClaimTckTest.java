package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The whole kit on the existing MariaDB server of {@code ROWQUEUE_TCK_MARIADB_URL} with seed 001's claim forced, so
 * that the no-SKIP-LOCKED path is proven on that server's version too. NOT RUN when unset.
 */
@EnabledIfEnvironmentVariable(named = "ROWQUEUE_TCK_MARIADB_URL", matches = ".+")
class ExistingMariaDbLastInsertIdClaimTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.existing("ROWQUEUE_TCK_MARIADB", "MariaDB server"),
                MySqlDialect.OPTION_CLAIM, "last-insert-id");
    }
}
