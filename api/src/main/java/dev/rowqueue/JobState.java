package dev.rowqueue;

/** The state of a job in a work queue, as {@link WorkQueue#job(long)} and {@link WorkQueue#jobs(JobQuery)} see it. */
public enum JobState {
    /** Claimable now: due, not leased, or leased by a consumer whose lease has ended. */
    READY,
    /** Waiting for its delay or retry time, not leased. */
    SCHEDULED,
    /** Held by a consumer whose lease has not ended. */
    LEASED,
    /** Exhausted its attempts; see {@link WorkQueue#deadLetters(int)}. */
    DEAD
}
