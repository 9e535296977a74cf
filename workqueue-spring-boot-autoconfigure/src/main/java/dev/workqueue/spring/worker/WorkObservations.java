package dev.workqueue.spring.worker;

import org.jspecify.annotations.Nullable;

import dev.workqueue.spi.ItemTrace;

/**
 * Observes each worker invocation, for tracing: the starter's implementation runs it in a
 * Micrometer {@code Observation}. Free of Micrometer types, so that the workers run
 * without Micrometer on the class path.
 * <p>
 * A worker thread calls {@link #begin} before invoking the method and {@link Work#end} on
 * the same thread once the outcome is applied.
 */
@FunctionalInterface
public interface WorkObservations {

	/** Observes nothing. */
	WorkObservations NONE = (endpoint, item) -> Work.NONE;

	/**
	 * Starts observing one invocation, on the worker's thread.
	 * @param endpoint the worker method
	 * @param item the item it is given
	 * @return the observation in progress
	 */
	Work begin(WorkerEndpoint endpoint, Object item);

	/**
	 * Starts observing one invocation of an item handed out with trace contexts, on the
	 * worker's thread: the observation's span continues the trace of the item's adds. The
	 * default ignores the contexts.
	 * @param endpoint the worker method
	 * @param item the item it is given
	 * @param trace the contexts stored with the item, {@code null} for none
	 * @return the observation in progress
	 */
	default Work begin(WorkerEndpoint endpoint, Object item, @Nullable ItemTrace trace) {
		return begin(endpoint, item);
	}

	/**
	 * One invocation being observed.
	 */
	@FunctionalInterface
	interface Work {

		/** Observes nothing. */
		Work NONE = (outcome, error) -> {
		};

		/**
		 * Ends the observation, on the thread that began it.
		 * @param outcome what became of the item
		 * @param error what the method threw, {@code null} if it returned
		 */
		void end(WorkOutcome outcome, @Nullable Throwable error);

	}

}
