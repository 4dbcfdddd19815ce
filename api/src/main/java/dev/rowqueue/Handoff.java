package dev.rowqueue;

import java.util.List;
import java.util.Objects;

/**
 * What {@link WorkQueue#ackAndClaim(java.util.Collection, int)} did.
 *
 * @param claimed the newly claimed jobs, in claim order; empty if none was due
 * @param lost    the jobs given to ack whose lease was lost (claimed by another consumer after the lease ended, or
 *                already acked): nothing changed for them; empty when every ack took effect
 */
public record Handoff(List<Job> claimed, List<Job> lost) {
    /** Copies the lists. */
    public Handoff {
        claimed = List.copyOf(Objects.requireNonNull(claimed, "claimed"));
        lost = List.copyOf(Objects.requireNonNull(lost, "lost"));
    }

    /** @return whether every ack took effect */
    public boolean allAcked() {
        return lost.isEmpty();
    }
}
