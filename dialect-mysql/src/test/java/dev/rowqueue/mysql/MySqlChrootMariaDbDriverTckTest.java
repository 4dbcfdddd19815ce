package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

/**
 * The whole kit on MySQL 9.x from Debian sid through MariaDB Connector/J at READ COMMITTED (set in the URL), with the
 * single-writer ring's {@code REPLACE ... SELECT} of "Groups of queues" ({@code mysql.singleWriter=replace}).
 */
class MySqlChrootMariaDbDriverTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.with(MySqlTargets.chroot("tck_mysql_chroot_mdb", true),
                MySqlDialect.OPTION_SINGLE_WRITER, "replace");
    }
}
