package dev.workqueue.spring.autoconfigure;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.springframework.beans.factory.ListableBeanFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkQueueRegistry;

/**
 * The {@link WorkQueueRegistry} of the starter: every singleton {@link RateLimitingQueue}
 * bean of the bean factory, looked up on each call, so that a queue bean the application
 * defines is found as well as those built from {@code workqueue.queues}.
 * <p>
 * It also tells which {@link RateLimiter} the starter built for a queue, for the Actuator
 * endpoint. Thread-safe.
 */
public final class BeanFactoryWorkQueueRegistry implements WorkQueueRegistry {

	private final ListableBeanFactory beanFactory;

	private final WorkQueueFactory factory;

	BeanFactoryWorkQueueRegistry(ListableBeanFactory beanFactory, WorkQueueFactory factory) {
		this.beanFactory = beanFactory;
		this.factory = factory;
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

	/**
	 * Returns the rate limiter the starter built for the queue named {@code queueName}.
	 * @param queueName the queue's name
	 * @return the limiter; empty for a queue the application defined itself, or an
	 * unknown name
	 */
	public Optional<RateLimiter<?>> rateLimiter(String queueName) {
		Objects.requireNonNull(queueName, "queueName");
		return this.factory.rateLimiter(queueName);
	}

}
