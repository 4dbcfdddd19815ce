package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit on MySQL 9.x from Debian sid ({@link MySqlServer}, in a chroot) through MySQL Connector/J, the
 * server's default REPEATABLE READ, the dialect's defaults. NOT RUN where the chroot cannot be made.
 */
class MySqlChrootTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.chroot("tck_mysql_chroot", false);
    }
}
