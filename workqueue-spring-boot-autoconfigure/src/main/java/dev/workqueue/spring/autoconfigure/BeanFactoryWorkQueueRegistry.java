package dev.workqueue.spring.autoconfigure;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spring.WorkQueueRegistry;

/**
 * The {@link WorkQueueRegistry} of the starter: every singleton {@link RateLimitingQueue}
 * bean of the bean factory, looked up on each call, so that a queue bean the application
 * defines is found as well as those built from {@code workqueue.queues}.
 * <p>
 * <b>After the context closes</b> the queues are shut down and their beans destroyed:
 * {@link #get} then throws {@link IllegalStateException} saying so (looking the bean up
 * again would build a new queue that nothing shuts down), while {@link #names()} keeps
 * answering.
 * <p>
 * Thread-safe.
 */
public final class BeanFactoryWorkQueueRegistry implements WorkQueueRegistry, DisposableBean {

	private final ListableBeanFactory beanFactory;

	private volatile boolean closed;

	BeanFactoryWorkQueueRegistry(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * {@inheritDoc}
	 * @throws IllegalStateException once the application context is closed
	 */
	@Override
	@SuppressWarnings("unchecked")
	public <T> RateLimitingQueue<T> get(String name) {
		Objects.requireNonNull(name, "name");
		if (this.closed) {
			throw new IllegalStateException("Work queue '" + name
					+ "' is not available: the application context is closed and its queues are shut down");
		}
		Set<String> names = names();
		if (!names.contains(name)) {
			throw new IllegalArgumentException(
					"No work queue named '" + name + "'; known queues: " + names.stream().sorted().toList());
		}
		return this.beanFactory.getBean(name, RateLimitingQueue.class);
	}

	/**
	 * Marks the registry closed: the context is destroying its beans.
	 */
	@Override
	public void destroy() {
		this.closed = true;
	}

	@Override
	public Set<String> names() {
		return Collections.unmodifiableSet(new LinkedHashSet<>(
				Arrays.asList(this.beanFactory.getBeanNamesForType(RateLimitingQueue.class, false, false))));
	}

}
