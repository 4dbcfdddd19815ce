package dev.rowqueue.mysql;

import dev.rowqueue.tck.faults.FaultCampaign;
import dev.rowqueue.tck.faults.FaultTarget;

/** The fault campaign on a three-member MySQL Group Replication group, multi-primary; NOT RUN without the chroot. */
class GroupReplicationMultiPrimaryFaultCampaignTest extends FaultCampaign {
    @Override
    protected FaultTarget start() {
        return GroupReplicationFaultTarget.start(GroupReplicationCluster.Mode.MULTI_PRIMARY);
    }
}
