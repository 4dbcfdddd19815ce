package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;

import java.util.List;

/**
 * The whole kit on a MariaDB server that refuses tables without a primary key ({@code innodb_force_primary_key=ON},
 * as managed and hardened MySQL-family servers are set): every table rowqueue or the kit creates, scratch and probe
 * tables included, must declare one.
 */
class MariaDbPrimaryKeyRequiredTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return MySqlTargets.dedicated("innodb_force_primary_key=ON", List.of("--innodb-force-primary-key=ON"));
    }
}
