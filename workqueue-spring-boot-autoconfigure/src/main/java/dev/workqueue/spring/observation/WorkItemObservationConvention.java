package dev.workqueue.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * An {@link ObservationConvention} for worker invocations. Define a bean of this type to
 * replace {@link DefaultWorkItemObservationConvention}, or extend that class to add key
 * values.
 */
public interface WorkItemObservationConvention extends ObservationConvention<WorkItemObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof WorkItemObservationContext;
	}

}
