package dev.workqueue.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * Builds the queues whose backend is redis. Defined only when workqueue-redis and Lettuce
 * are on the class path, so that {@link WorkQueueFactory} never loads them otherwise.
 */
interface RedisQueueSource {

	/**
	 * Builds a handle on the shared queue {@code name}, with the shared limiter its
	 * properties describe.
	 * @param name the queue's name
	 * @param rateLimit its {@code rate-limiter} section, or {@code null}
	 * @return the queue and its limiter
	 */
	Built create(String name, WorkQueueProperties.@Nullable RateLimit rateLimit);

	/**
	 * A queue and the limiter it was built with.
	 *
	 * @param queue the queue
	 * @param rateLimiter its limiter
	 */
	record Built(RateLimitingQueue<Object> queue, RateLimiter<Object> rateLimiter) {

	}

}
