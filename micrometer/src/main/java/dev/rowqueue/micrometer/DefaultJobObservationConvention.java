package dev.rowqueue.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default names and tags of a job's observation:
 *
 * <ul>
 *   <li>name {@code rowqueue.job} (so the {@code DefaultMeterObservationHandler} makes a {@code rowqueue.job} timer
 *       and a {@code rowqueue.job.active} long task timer);</li>
 *   <li>contextual name (the span's name) {@code process <queue>};</li>
 *   <li>low-cardinality keys {@code queue}, and {@code outcome} ({@code success}, {@code error}, {@code lease_lost})
 *       once the handler is done;</li>
 *   <li>high-cardinality keys (spans only) {@code job.id} and {@code job.attempt}.</li>
 * </ul>
 */
public class DefaultJobObservationConvention implements JobObservationConvention {

    /** The shared instance. */
    public static final DefaultJobObservationConvention INSTANCE = new DefaultJobObservationConvention();

    /** The observation's name. */
    public static final String NAME = "rowqueue.job";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(JobObservationContext context) {
        return "process " + context.queue();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(JobObservationContext context) {
        KeyValues values = KeyValues.of("queue", context.queue());
        String outcome = context.outcome();
        return outcome == null ? values : values.and("outcome", outcome);
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(JobObservationContext context) {
        return KeyValues.of("job.id", Long.toString(context.job().id()),
                "job.attempt", Integer.toString(context.job().attempt()));
    }
}
