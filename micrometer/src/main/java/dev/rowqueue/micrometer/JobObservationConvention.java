package dev.rowqueue.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code rowqueue.job} observation; implement it to change them, or extend
 * {@link DefaultJobObservationConvention}.
 */
public interface JobObservationConvention extends ObservationConvention<JobObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof JobObservationContext;
    }
}
