package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.Timeout;

/**
 * The whole kit on a three-node MariaDB Galera cluster started on loopback ({@link GaleraCluster}), every
 * {@code getConnection} going to the next node: a rule's producers, consumers and checks run on different nodes.
 * NOT RUN where galera-4 or mariadbd is missing. A rule that wedges the cluster fails on its timeout.
 */
@Timeout(180)
class MariaDbGaleraSpreadTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return GaleraTargets.spread();
    }
}
