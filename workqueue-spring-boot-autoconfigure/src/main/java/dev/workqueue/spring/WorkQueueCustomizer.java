package dev.workqueue.spring;

import dev.workqueue.WorkQueues;

/**
 * Callback to customize each queue the starter builds from {@code workqueue.queues},
 * before it is built: set its metrics hook, heartbeat, and so on. The starter has already
 * set the name and clock.
 * <p>
 * Every {@code WorkQueueCustomizer} bean is called for every queue, in
 * {@link org.springframework.core.Ordered order}. Queue beans the application defines
 * itself are not customized.
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
