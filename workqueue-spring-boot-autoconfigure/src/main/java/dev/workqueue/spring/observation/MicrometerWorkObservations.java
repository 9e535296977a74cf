package dev.workqueue.spring.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.ItemTrace;
import dev.workqueue.spring.worker.WorkObservations;
import dev.workqueue.spring.worker.WorkerEndpoint;

/**
 * Runs each worker invocation in a {@link WorkQueueObservationDocumentation#PROCESS}
 * observation, in scope while the method runs, so that spans the method starts are
 * children of the item's span. A registry without handlers costs one check per item: the
 * context is not even created.
 */
public final class MicrometerWorkObservations implements WorkObservations {

	private final ObservationRegistry registry;

	private final @Nullable WorkItemObservationConvention convention;

	/**
	 * Creates the observations.
	 * @param registry the registry to observe in
	 * @param convention the application's convention, {@code null} for
	 * {@link DefaultWorkItemObservationConvention}
	 */
	public MicrometerWorkObservations(ObservationRegistry registry,
			@Nullable WorkItemObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "registry");
		this.convention = convention;
	}

	@Override
	public Work begin(WorkerEndpoint endpoint, Object item) {
		return begin(endpoint, item, null);
	}

	@Override
	public Work begin(WorkerEndpoint endpoint, Object item, @Nullable ItemTrace trace) {
		if (this.registry.isNoop()) {
			return Work.NONE;
		}
		WorkItemObservationContext context = new WorkItemObservationContext(endpoint.queue(), endpoint.id(), item,
				trace);
		Observation observation = WorkQueueObservationDocumentation.PROCESS
			.observation(this.convention, DefaultWorkItemObservationConvention.INSTANCE, () -> context, this.registry)
			.start();
		Observation.Scope scope;
		try {
			scope = observation.openScope();
		}
		catch (RuntimeException | Error ex) {
			observation.stop();
			throw ex;
		}
		// Whatever the application's handlers throw, the scope closes and the
		// observation stops: a scope left open on the worker thread would be the parent
		// of every later item's observation there.
		return (outcome, error) -> {
			try {
				context.setOutcome(outcome);
				if (error != null) {
					observation.error(error);
				}
			}
			finally {
				try {
					scope.close();
				}
				finally {
					observation.stop();
				}
			}
		};
	}

}
