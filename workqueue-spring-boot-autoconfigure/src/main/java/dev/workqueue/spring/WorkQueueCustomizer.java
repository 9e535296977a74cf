package dev.workqueue.spring;

import dev.workqueue.WorkQueues;

/**
 * Callback to customize each queue the starter builds with backend {@code memory} (the
 * default), before it is built: set its metrics hook, heartbeat, and so on. The starter
 * has already set the name and clock.
 * <p>
 * Every {@code WorkQueueCustomizer} bean is called for every memory queue, in
 * {@link org.springframework.core.Ordered order}. The queues of the other backends are
 * customized by their backend's own customizer instead ({@link RedisWorkQueueCustomizer}
 * and its like), and queue beans the application defines itself are not customized.
 */
@FunctionalInterface
public interface WorkQueueCustomizer {

	/**
	 * Customizes the builder of the queue named {@code queueName}.
	 * @param queueName the queue's name, also its bean name
	 * @param builder the builder to customize
	 */
	void customize(String queueName, WorkQueues.Builder<Object> builder);

}
