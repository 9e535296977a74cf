package dev.workqueue.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the work queues, documented the Micrometer way.
 */
public enum WorkQueueObservationDocumentation implements ObservationDocumentation {

	/** One worker invocation: from handing the item to the method to its outcome. */
	PROCESS {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultWorkItemObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/**
	 * The low-cardinality key names of {@link #PROCESS}.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The queue's name. */
		QUEUE_NAME {
			@Override
			public String asString() {
				return "workqueue.name";
			}
		},

		/**
		 * What became of the item: {@code done}, {@code requeue}, {@code requeue-after},
		 * {@code failed} or {@code gave-up}.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "workqueue.outcome";
			}
		}

	}

}
