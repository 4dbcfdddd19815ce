package dev.rowqueue.micrometer;

import dev.rowqueue.JobContext;
import dev.rowqueue.JobHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.Objects;

/**
 * A {@link JobHandler} that runs each job inside one {@link Observation} ({@code rowqueue.job}, see
 * {@link DefaultJobObservationConvention}), so a tracing backend sees one span per job a worker runs, and the
 * handler's own observations, spans and logs nest in it (its scope is open while the handler runs, on the handler's
 * thread).
 *
 * <pre>{@code
 * Worker worker = mail.worker(ObservedJobHandler.wrap(observationRegistry, "mail", job -> send(job.payload())),
 *         WorkerOptions.defaults().withThreads(4));
 * }</pre>
 *
 * <p>The observation starts when the handler is called and stops when it returns or throws; a throw is recorded with
 * {@link Observation#error(Throwable)} and rethrown unchanged, so the worker nacks the job as usual. With
 * {@link ObservationRegistry#NOOP} the wrapper adds next to nothing.
 */
public final class ObservedJobHandler implements JobHandler {

    private final ObservationRegistry registry;
    private final String queue;
    private final JobHandler handler;
    private final JobObservationConvention convention;

    private ObservedJobHandler(ObservationRegistry registry, String queue, JobHandler handler,
                               JobObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.convention = convention;
    }

    /**
     * @param registry where observations go
     * @param queue    the worker's queue name (a tag)
     * @param handler  the job handler
     * @return a handler that observes {@code handler}
     */
    public static JobHandler wrap(ObservationRegistry registry, String queue, JobHandler handler) {
        return new ObservedJobHandler(registry, queue, handler, null);
    }

    /**
     * @param registry   where observations go
     * @param queue      the worker's queue name
     * @param handler    the job handler
     * @param convention names and tags instead of {@link DefaultJobObservationConvention}'s; a convention registered
     *                   globally in the registry's config still wins, as Micrometer does
     * @return a handler that observes {@code handler}
     */
    public static JobHandler wrap(ObservationRegistry registry, String queue, JobHandler handler,
                                  JobObservationConvention convention) {
        return new ObservedJobHandler(registry, queue, handler, Objects.requireNonNull(convention, "convention"));
    }

    @Override
    public void handle(JobContext job) throws Exception {
        JobObservationContext context = new JobObservationContext(queue, job);
        Observation observation = Observation.createNotStarted(convention, DefaultJobObservationConvention.INSTANCE,
                () -> context, registry).start();
        Observation.Scope scope = observation.openScope();
        try {
            handler.handle(job);
            context.outcome(job.leaseLost() ? JobObservationContext.LEASE_LOST : JobObservationContext.SUCCESS);
        } catch (Throwable t) {
            context.outcome(job.leaseLost() ? JobObservationContext.LEASE_LOST : JobObservationContext.ERROR);
            observation.error(t);
            throw t;
        } finally {
            scope.close();
            observation.stop();
        }
    }

    @Override
    public String toString() {
        return "ObservedJobHandler[" + queue + ", " + handler + "]";
    }
}
