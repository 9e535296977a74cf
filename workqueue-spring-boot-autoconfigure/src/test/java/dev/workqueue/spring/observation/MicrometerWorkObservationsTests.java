package dev.workqueue.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.workqueue.spring.worker.WorkObservations;
import dev.workqueue.spring.worker.WorkOutcome;
import dev.workqueue.spring.worker.WorkerEndpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The observation of one item ends whatever the application's handlers do: a handler that
 * throws on the item's error leaves no scope open on the worker thread, where the
 * observations of the items after it would be its children.
 */
class MicrometerWorkObservationsTests {

	@Test
	void aHandlerThatThrowsOnTheErrorLeavesNoScopeOpenAndTheObservationStopped() throws Exception {
		ObservationRegistry registry = ObservationRegistry.create();
		ThrowingOnError handler = new ThrowingOnError();
		registry.observationConfig().observationHandler(handler);
		WorkerEndpoint endpoint = new WorkerEndpoint("worker#process", this,
				getClass().getDeclaredMethod("process", String.class), "orders", null);
		WorkObservations.Work work = new MicrometerWorkObservations(registry, null).begin(endpoint, "a");
		assertThat(registry.getCurrentObservation()).isNotNull();

		assertThatIllegalStateException()
			.isThrownBy(() -> work.end(WorkOutcome.FAILED, new IllegalArgumentException("boom")))
			.withMessage("handler failed");

		assertThat(registry.getCurrentObservation()).as("no scope left open").isNull();
		assertThat(handler.stopped).isTrue();
	}

	void process(String item) {
	}

	/** A handler of every observation that fails on an error. */
	private static final class ThrowingOnError implements ObservationHandler<Observation.Context> {

		boolean stopped;

		@Override
		public void onError(Observation.Context context) {
			throw new IllegalStateException("handler failed");
		}

		@Override
		public void onStop(Observation.Context context) {
			this.stopped = true;
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
