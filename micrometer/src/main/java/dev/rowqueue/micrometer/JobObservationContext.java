package dev.rowqueue.micrometer;

import dev.rowqueue.JobContext;
import io.micrometer.observation.Observation;

import java.util.Objects;

/**
 * What the {@code rowqueue.job} observation of one job knows: the queue, the job as its handler sees it and, once the
 * handler is done, its outcome. For {@link JobObservationConvention}s and observation handlers.
 */
public class JobObservationContext extends Observation.Context {

    /** The handler returned. */
    public static final String SUCCESS = "success";
    /** The handler threw (the worker nacks the job). */
    public static final String ERROR = "error";
    /** The handler returned or threw after the worker had lost the job's lease: what it did changes nothing. */
    public static final String LEASE_LOST = "lease_lost";

    private final String queue;
    private final JobContext job;
    private volatile String outcome;

    /**
     * @param queue the queue's name
     * @param job   the job
     */
    public JobObservationContext(String queue, JobContext job) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.job = Objects.requireNonNull(job, "job");
    }

    /** @return the queue's name */
    public String queue() {
        return queue;
    }

    /** @return the job, its attempt and lease */
    public JobContext job() {
        return job;
    }

    /**
     * @return {@link #SUCCESS}, {@link #ERROR} or {@link #LEASE_LOST} once the handler is done; {@code null} while it
     *         runs
     */
    public String outcome() {
        return outcome;
    }

    void outcome(String outcome) {
        this.outcome = outcome;
    }
}
