package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.Timeout;

/**
 * The whole kit on a three-member MySQL 9.x Group Replication group in multi-primary mode
 * ({@link GroupReplicationCluster}), every {@code getConnection} going to the next member: a rule's producers,
 * consumers and checks run on different members. NOT RUN where the chroot cannot be made (docs/mysql.md, "MySQL Group
 * Replication").
 */
@Timeout(300)
class MySqlGroupReplicationSpreadTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return GroupReplicationTargets.spread();
    }
}
