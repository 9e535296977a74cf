package dev.workqueue.spring.observation;

import io.micrometer.common.KeyValues;

import dev.workqueue.spring.observation.WorkQueueObservationDocumentation.LowCardinalityKeyNames;
import dev.workqueue.spring.worker.WorkOutcome;

/**
 * The default {@link WorkItemObservationConvention}: observation
 * {@code workqueue.process}, contextual name {@code <queue> process}, and two
 * low-cardinality key values, {@code workqueue.name} (the queue) and
 * {@code workqueue.outcome} (a {@link WorkOutcome#value()}). The item is never a key
 * value.
 */
public class DefaultWorkItemObservationConvention implements WorkItemObservationConvention {

	/** The observation's name. */
	public static final String NAME = "workqueue.process";

	/** A shared instance. */
	public static final DefaultWorkItemObservationConvention INSTANCE = new DefaultWorkItemObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(WorkItemObservationContext context) {
		return context.getQueueName() + " process";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(WorkItemObservationContext context) {
		KeyValues keyValues = KeyValues.of(LowCardinalityKeyNames.QUEUE_NAME.withValue(context.getQueueName()));
		WorkOutcome outcome = context.getOutcome();
		return (outcome != null) ? keyValues.and(LowCardinalityKeyNames.OUTCOME.withValue(outcome.value())) : keyValues;
	}

}
