package dev.workqueue.spring.autoconfigure;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

import org.springframework.beans.factory.ListableBeanFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;

/**
 * The {@link WorkQueueRegistry} of the starter: every singleton {@link RateLimitingQueue}
 * bean of the bean factory, looked up on each call, so that a queue bean the application
 * defines is found as well as those built from {@code workqueue.queues}.
 * <p>
 * Thread-safe.
 */
public final class BeanFactoryWorkQueueRegistry implements WorkQueueRegistry {

	private final ListableBeanFactory beanFactory;

	BeanFactoryWorkQueueRegistry(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> RateLimitingQueue<T> get(String name) {
		Objects.requireNonNull(name, "name");
		Set<String> names = names();
		if (!names.contains(name)) {
			throw new IllegalArgumentException(
					"No work queue named '" + name + "'; known queues: " + names.stream().sorted().toList());
		}
		return this.beanFactory.getBean(name, RateLimitingQueue.class);
	}

	@Override
	public Set<String> names() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(
				Arrays.asList(this.beanFactory.getBeanNamesForType(RateLimitingQueue.class, false, false))));
	}

}
