package dev.rowqueue.mysql;

import dev.rowqueue.tck.faults.FaultCampaign;
import dev.rowqueue.tck.faults.FaultTarget;

/** The fault campaign on a three-node MariaDB Galera cluster; NOT RUN without galera-4. */
class GaleraFaultCampaignTest extends FaultCampaign {
    @Override
    protected FaultTarget start() {
        return GaleraFaultTarget.start();
    }
}
