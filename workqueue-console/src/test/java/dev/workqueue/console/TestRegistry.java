package dev.workqueue.console;

import java.util.Map;
import java.util.Set;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;

/**
 * A {@link WorkQueueRegistry} of the queues a test gives it.
 */
final class TestRegistry implements WorkQueueRegistry {

	private final Map<String, RateLimitingQueue<?>> queues;

	TestRegistry(Map<String, RateLimitingQueue<?>> queues) {
		this.queues = queues;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> RateLimitingQueue<T> get(String name) {
		RateLimitingQueue<?> queue = this.queues.get(name);
		if (queue == null) {
			throw new IllegalArgumentException("No work queue named '" + name + "'");
		}
		return (RateLimitingQueue<T>) queue;
	}

	@Override
	public Set<String> names() {
		return this.queues.keySet();
	}

}
