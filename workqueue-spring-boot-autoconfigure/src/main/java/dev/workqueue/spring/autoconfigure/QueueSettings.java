package dev.workqueue.spring.autoconfigure;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * Everything the starter needs to build and run one queue, resolved once from
 * {@link WorkQueueProperties} by {@link WorkQueueSettings}: each key the queue sets, else
 * the one under {@code defaults}. Immutable; the bean registrar, the factory, the
 * backends and their metrics hooks take it, and the worker containers its
 * {@link #workers()}.
 *
 * @param name the queue's name, also its bean name
 * @param backend where it keeps its items
 * @param rateLimiter the rate limiter deciding the delay of its retries
 * @param priority whether it is a priority queue, and its starvation guard
 * @param latencyTimers whether its metrics record the two latency timers
 * @param workers how its workers run
 * @param givenUp how many given-up items it keeps, and for how long
 */
record QueueSettings(String name, WorkQueueProperties.Backend backend, RateLimiterSettings rateLimiter,
		QueuePriority priority, boolean latencyTimers, WorkerSettings workers, GivenUpBound givenUp) {

	/**
	 * Returns these settings under another queue name.
	 * @param name the queue's name
	 * @return the settings
	 */
	QueueSettings named(String name) {
		return new QueueSettings(name, this.backend, this.rateLimiter, this.priority, this.latencyTimers, this.workers,
				this.givenUp);
	}

}
