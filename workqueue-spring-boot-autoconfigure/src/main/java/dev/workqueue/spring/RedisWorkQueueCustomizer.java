package dev.workqueue.spring;

import dev.workqueue.redis.RedisWorkQueues;

/**
 * Callback to customize each queue the starter builds with backend {@code redis}, before
 * it is built: its command timeout, heartbeat, metrics hook, and so on. The starter has
 * already set the name, key prefix, lease, clock and metrics hook.
 * <p>
 * Every {@code RedisWorkQueueCustomizer} bean is called for every redis queue, in
 * {@link org.springframework.core.Ordered order}. Memory queues are customized by
 * {@link WorkQueueCustomizer} instead, and queue beans the application defines itself are
 * not customized.
 */
@FunctionalInterface
public interface RedisWorkQueueCustomizer {

	/**
	 * Customizes the builder of the redis queue named {@code queueName}.
	 * @param queueName the queue's name, also its bean name
	 * @param builder the builder to customize
	 */
	void customize(String queueName, RedisWorkQueues.Builder<Object> builder);

}
