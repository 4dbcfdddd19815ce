package dev.rowqueue.postgres;

import dev.rowqueue.tck.faults.FaultCampaign;
import dev.rowqueue.tck.faults.FaultTarget;

/** The fault campaign on a PostgreSQL primary with a synchronous standby. */
class PostgresFaultCampaignTest extends FaultCampaign {
    @Override
    protected FaultTarget start() {
        return PostgresFaultTarget.start();
    }
}
