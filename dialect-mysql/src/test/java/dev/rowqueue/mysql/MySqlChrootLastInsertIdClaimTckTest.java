package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit on MySQL 9.x from Debian sid through MySQL Connector/J with the claim of the concurrent-reads article
 * ({@code mysql.claim=last-insert-id}) instead of SKIP LOCKED.
 */
class MySqlChrootLastInsertIdClaimTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.chroot("tck_mysql_chroot_lii", false), MySqlDialect.OPTION_CLAIM,
                "last-insert-id");
    }
}
