package dev.workqueue.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * Where the queues of one {@code backend} value keep their items: builds a queue with its
 * rate limiter and the store its workers count failures in. {@link WorkQueueFactory}
 * picks the backend of each queue; a backend knows nothing of the others.
 */
interface QueueBackend {

	/**
	 * Builds the queue named {@code name}, with the rate limiter its properties describe:
	 * a {@link dev.workqueue.PriorityQueue} when {@code priority} is enabled.
	 * @param name the queue's name
	 * @param rateLimit its {@code rate-limiter} section, or {@code null}
	 * @param priority its priority settings
	 * @param latencyTimers whether its metrics, if any, record the two latency timers
	 * @return the queue and what goes with it
	 */
	BuiltQueue create(String name, WorkQueueProperties.@Nullable RateLimit rateLimit, QueuePriority priority,
			boolean latencyTimers);

	/**
	 * A queue and what the starter built with it.
	 *
	 * @param queue the queue
	 * @param rateLimiter its limiter
	 * @param failures where its workers count each item's failures for
	 * {@code max-retries}
	 */
	record BuiltQueue(RateLimitingQueue<Object> queue, RateLimiter<Object> rateLimiter,
			FailureCounts<Object> failures) {

	}

}
