package dev.workqueue.spring.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.BeanFactory;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.worker.FailureTracking;

/**
 * Builds the queue of each {@code workqueue.queues} entry on the backend its
 * {@link QueueSettings} name, and answers what it built with it.
 * <p>
 * The queue beans are created by calling {@link #create(QueueSettings)} on the bean of
 * this class named {@link #BEAN_NAME}, which is the one place that picks a queue's
 * backend. Thread-safe: what was built is kept in a concurrent map.
 */
final class WorkQueueFactory implements WorkQueueDetails {

	static final String BEAN_NAME = "dev.workqueue.spring.autoconfigure.workQueueFactory";

	private final BeanFactory beanFactory;

	private final Map<String, QueueBackend.BuiltQueue> built = new ConcurrentHashMap<>();

	/**
	 * Creates the factory.
	 * @param beanFactory where the backends are, each the bean named
	 * {@link QueueBackend#beanName}, defined only when its classes are on the class path
	 * and a queue has that backend
	 */
	WorkQueueFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Builds a queue on its backend, with the rate limiter its settings describe; a
	 * {@link dev.workqueue.PriorityQueue} when its priority is enabled.
	 * @param settings the queue's settings
	 * @return a new queue, of any item type
	 */
	RateLimitingQueue<?> create(QueueSettings settings) {
		QueueBackend.BuiltQueue queue = backendFor(settings).create(settings);
		this.built.put(settings.name(), queue);
		return queue.queue();
	}

	private QueueBackend backendFor(QueueSettings settings) {
		WorkQueueProperties.Backend backend = settings.backend();
		String beanName = QueueBackend.beanName(backend);
		if (!this.beanFactory.containsBean(beanName)) {
			throw new IllegalStateException(backend.notOnClassPath(settings.name()));
		}
		return this.beanFactory.getBean(beanName, QueueBackend.class);
	}

	/**
	 * Returns the rate limiter of the queue named {@code name}, if this factory built
	 * that queue.
	 * @param name the queue's name
	 * @return the limiter, or empty
	 */
	@Override
	public Optional<RateLimiter<?>> rateLimiter(String name) {
		return Optional.ofNullable(this.built.get(name)).map(QueueBackend.BuiltQueue::rateLimiter);
	}

	/**
	 * Returns where the workers of the queue named {@code name} count failures: the store
	 * its backend built, or one in this JVM for a queue this factory did not build.
	 * @param name the queue's name
	 * @return the failure tracking
	 */
	FailureTracking failureTracking(String name) {
		QueueBackend.BuiltQueue queue = this.built.get(name);
		return (queue != null) ? new FailureTracking(queue.failures(), queue.rateLimiter())
				: FailureTracking.inMemory();
	}

	@Override
	public String backend(String name) {
		QueueBackend.BuiltQueue queue = this.built.get(name);
		return (queue != null) ? queue.settings().backend().name().toLowerCase(Locale.ROOT) : "unknown";
	}

}
