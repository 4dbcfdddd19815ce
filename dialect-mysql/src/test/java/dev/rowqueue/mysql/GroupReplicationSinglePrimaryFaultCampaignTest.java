package dev.rowqueue.mysql;

import dev.rowqueue.tck.faults.FaultCampaign;
import dev.rowqueue.tck.faults.FaultTarget;

/** The fault campaign on a three-member MySQL Group Replication group, single-primary; NOT RUN without the chroot. */
class GroupReplicationSinglePrimaryFaultCampaignTest extends FaultCampaign {
    @Override
    protected FaultTarget start() {
        return GroupReplicationFaultTarget.start(GroupReplicationCluster.Mode.SINGLE_PRIMARY);
    }
}
