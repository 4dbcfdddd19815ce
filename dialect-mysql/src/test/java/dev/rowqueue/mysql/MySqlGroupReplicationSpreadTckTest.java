package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.Timeout;

/**
 * The whole kit on a three-member MySQL 9.x Group Replication group in multi-primary mode
 * ({@link GroupReplicationCluster}), every {@code getConnection} going to the next member: a rule's producers,
 * consumers and checks run on different members. NOT RUN where the chroot cannot be made, and NOT RUN by default
 * unless {@code -Drowqueue.mysql.grSpread=run}: it did not pass reliably (docs/mysql.md, "MySQL Group Replication").
 */
@Timeout(300)
class MySqlGroupReplicationSpreadTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        org.junit.jupiter.api.Assumptions.assumeTrue("run".equals(System.getProperty("rowqueue.mysql.grSpread")),
                "not run by default: on MySQL 9.7.4 Group Replication in multi-primary mode the spread kit did not pass"
                        + " reliably (mysqld crashed with SIGSEGV in MVCC::view_close during the keyed claim's candidate"
                        + " SELECT in 2 of 5 runs on 2026-11-27; one earlier run failed 'many nodes starting at once' with"
                        + " 'queue ... vanished from the catalog'); -Drowqueue.mysql.grSpread=run runs it (docs/mysql.md)");
        return GroupReplicationTargets.spread();
    }
}
