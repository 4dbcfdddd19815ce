package dev.rowqueue.h2;

import dev.rowqueue.tck.RowQueueTck;
import dev.rowqueue.tck.TckTarget;
import dev.rowqueue.tck.TckTargets;

/** The whole kit on H2 in memory. */
class H2InMemoryTckTest extends RowQueueTck {
    @Override
    protected TckTarget target() {
        return TckTargets.driverManager("H2 in memory", "jdbc:h2:mem:rowqueue_tck;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
