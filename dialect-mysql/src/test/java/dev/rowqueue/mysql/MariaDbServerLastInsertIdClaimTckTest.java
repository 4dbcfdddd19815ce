package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/**
 * The whole kit on the MariaDB server of {@code ROWQUEUE_TCK_MARIADB_URL} with the last-insert-id claim forced, so that
 * the no-SKIP-LOCKED path is proven on that server's version too. NOT RUN when unset.
 */
class MariaDbServerLastInsertIdClaimTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(TckTargets.fromEnvironment("MARIADB", "MariaDB server", MySqlTargets::pooled),
                MySqlDialect.OPTION_CLAIM, "last-insert-id");
    }
}
