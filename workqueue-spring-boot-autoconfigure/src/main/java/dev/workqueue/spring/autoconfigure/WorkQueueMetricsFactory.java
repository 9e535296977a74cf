package dev.workqueue.spring.autoconfigure;

import dev.workqueue.WorkQueueMetrics;

/**
 * Makes the metrics hook of a queue, by name: how queues of every backend get their
 * meters (the memory backend's through a {@link dev.workqueue.spring.WorkQueueCustomizer}
 * too). The metrics auto-configuration defines one when Micrometer is in use.
 */
@FunctionalInterface
public interface WorkQueueMetricsFactory {

	/**
	 * Returns the hook that records the events of the queue named {@code queueName}.
	 * @param queueName the queue's name
	 * @return the hook
	 */
	WorkQueueMetrics metrics(String queueName);

}
