package dev.workqueue.spring.autoconfigure;

import java.util.Locale;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;

/**
 * Where the queues of one {@code backend} value keep their items: builds a queue with its
 * rate limiter and the store its workers count failures in. {@link WorkQueueFactory}
 * picks the backend of each queue; a backend knows nothing of the others.
 * <p>
 * Each backend, memory included, is the bean named
 * {@link #beanName(WorkQueueProperties.Backend)}, defined by its configuration in
 * {@link QueueBackendConfigurations} when its classes are on the class path and a queue
 * has that backend. The queue beans of a backend depend on that bean, so that they are
 * created after it and closed before it.
 */
interface QueueBackend {

	/**
	 * Returns the name of the bean that builds the queues of {@code backend}: for
	 * {@code redis}, {@code workQueueRedisBackend}, the name of its {@code @Bean} method.
	 * @param backend the backend
	 * @return the bean name
	 */
	static String beanName(WorkQueueProperties.Backend backend) {
		String name = backend.name();
		return "workQueue" + name.charAt(0) + name.substring(1).toLowerCase(Locale.ROOT) + "Backend";
	}

	/**
	 * Builds a queue with the rate limiter its settings describe: a
	 * {@link dev.workqueue.PriorityQueue} when its priority is enabled, with metrics that
	 * record the latency timers or not as its settings say.
	 * @param settings the queue's settings
	 * @return the queue and what goes with it
	 */
	BuiltQueue create(QueueSettings settings);

	/**
	 * A queue and what the starter built with it.
	 *
	 * @param settings the settings it was built with
	 * @param queue the queue
	 * @param rateLimiter its limiter
	 * @param failures where its workers count each item's failures for
	 * {@code max-retries}
	 */
	record BuiltQueue(QueueSettings settings, RateLimitingQueue<Object> queue, RateLimiter<Object> rateLimiter,
			FailureCounts<Object> failures) {

	}

}
