package dev.workqueue.spring.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Whether a queue is a {@link dev.workqueue.PriorityQueue}, and its starvation timeout:
 * each taken from the queue's {@code priority} section, else from the defaults'.
 *
 * @param enabled whether the queue is a priority queue
 * @param starvationTimeout how long an item may stay ready before it goes first,
 * {@code null} for strict priorities
 */
record QueuePriority(boolean enabled, @Nullable Duration starvationTimeout) {

	/**
	 * Resolves the priority settings of the queue named {@code name}.
	 * @param properties the {@code workqueue.*} properties
	 * @param name the queue's name; a queue without properties takes the defaults
	 * @return the settings
	 */
	static QueuePriority of(WorkQueueProperties properties, String name) {
		WorkQueueProperties.Priority defaults = properties.getDefaults().getPriority();
		WorkQueueProperties.Queue queue = properties.getQueues().get(name);
		WorkQueueProperties.Priority own = (queue != null) ? queue.getPriority() : defaults;
		Boolean enabled = (own.getEnabled() != null) ? own.getEnabled() : defaults.getEnabled();
		Duration starvationTimeout = (own.getStarvationTimeout() != null) ? own.getStarvationTimeout()
				: defaults.getStarvationTimeout();
		return new QueuePriority(Boolean.TRUE.equals(enabled), starvationTimeout);
	}

}
