package dev.rowqueue.mysql;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import org.junit.jupiter.api.Timeout;

/**
 * The whole kit on node 1 of a three-node MariaDB Galera cluster started on loopback ({@link GaleraCluster}): every
 * write is certified and replicated, every read served by one node. NOT RUN where galera-4 or mariadbd is missing.
 */
@Timeout(180)
class MariaDbGaleraNodeTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return GaleraTargets.oneNode();
    }
}
