package dev.workqueue.spring.autoconfigure;

import java.util.Optional;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * What the starter knows of a queue beyond the {@link dev.workqueue.WorkQueue} interface:
 * how it was built. The Actuator endpoint reads it; each queue backend the starter can
 * build provides one bean of this type.
 */
public interface WorkQueueDetails {

	/**
	 * Returns the rate limiter the starter built for the queue named {@code queueName}.
	 * @param queueName the queue's name
	 * @return the limiter; empty for a queue the application defined itself, or an
	 * unknown name
	 */
	Optional<RateLimiter<?>> rateLimiter(String queueName);

	/**
	 * Returns where the queue named {@code queueName} keeps its items.
	 * @param queueName the queue's name
	 * @return the value of its {@code backend} property ({@code memory}, {@code redis},
	 * ...), or {@code unknown} for a queue this source did not build
	 */
	default String backend(String queueName) {
		return "unknown";
	}

}
