package dev.rowqueue.tck.faults;

/** The faults of the campaign, each injected into every deployment where it makes sense. */
public enum Fault {
    /** SIGKILL one node under load, then restart it. */
    KILL("SIGKILL one node under load, then restart it"),
    /** SIGSTOP one node for the hold, then SIGCONT. */
    STALL("SIGSTOP one node, then SIGCONT (a stalled node)"),
    /** Cut one node off from the others for the hold, then heal. */
    PARTITION("network partition: one node cut off from the others, then healed"),
    /** Kill every node, then restart the cluster from its most advanced node. */
    WHOLE_CLUSTER("whole cluster killed and restarted (bootstrap from the most advanced node)"),
    /** Kill the client's sessions on the servers, again and again for the hold, mid-transaction. */
    CONNECTIONS_CUT("the client's connections cut mid-transaction");

    private final String description;

    Fault(String description) {
        this.description = description;
    }

    /** @return what the fault does, as the campaign's table says it */
    public String description() {
        return description;
    }
}
