package dev.workqueue.spring.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.worker.FailureTracking;
import dev.workqueue.spring.worker.WorkerSettings;

/**
 * Turns {@link WorkQueueProperties} into objects: builds the queue of each
 * {@code workqueue.queues} entry on its backend, and resolves the worker settings of any
 * queue. A queue's missing settings come from the defaults.
 * <p>
 * The queue beans are created by calling {@link #create(String)} on the bean of this
 * class named {@link #BEAN_NAME}. {@link #backendFor(String)} is the one place that picks
 * a queue's backend. Thread-safe: what was built is kept in a concurrent map.
 */
final class WorkQueueFactory implements WorkQueueDetails {

	static final String BEAN_NAME = "dev.workqueue.spring.autoconfigure.workQueueFactory";

	private final WorkQueueProperties properties;

	private final QueueBackend memory;

	private final ObjectProvider<QueueBackend> redis;

	private final Map<String, QueueBackend.BuiltQueue> built = new ConcurrentHashMap<>();

	/**
	 * Creates the factory.
	 * @param properties the {@code workqueue.*} properties
	 * @param memory the memory backend
	 * @param redis the redis backend, available only when workqueue-redis, Lettuce and
	 * Spring Boot's Redis support are on the class path
	 */
	WorkQueueFactory(WorkQueueProperties properties, QueueBackend memory, ObjectProvider<QueueBackend> redis) {
		this.properties = properties;
		this.memory = memory;
		this.redis = redis;
	}

	/**
	 * Builds the queue named {@code name} on its backend, with the rate limiter its
	 * properties describe; a {@link dev.workqueue.PriorityQueue} when its
	 * {@code priority.enabled} is set.
	 * @param name the queue's name
	 * @return a new queue, of any item type
	 */
	RateLimitingQueue<?> create(String name) {
		QueueBackend.BuiltQueue queue = backendFor(name).create(name, rateLimitOf(name),
				QueuePriority.of(this.properties, name), latencyTimersOf(name));
		this.built.put(name, queue);
		return queue.queue();
	}

	private QueueBackend backendFor(String name) {
		if (backendOf(name) == WorkQueueProperties.Backend.MEMORY) {
			return this.memory;
		}
		QueueBackend redis = this.redis.getIfAvailable();
		if (redis == null) {
			throw new IllegalStateException("Queue '" + name + "' has backend redis, but workqueue-redis, Lettuce "
					+ "or Spring Boot's Redis support is not on the class path: add dev.workqueue:workqueue-redis and "
					+ "spring-boot-starter-data-redis");
		}
		return redis;
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

	/**
	 * Returns how the workers of the queue named {@code name} run: its own settings, or
	 * the defaults where it has none (all of them for a queue without properties).
	 * @param name the queue's name
	 * @return the settings
	 */
	WorkerSettings workerSettings(String name) {
		WorkQueueProperties.Defaults defaults = this.properties.getDefaults();
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		if (queue == null) {
			return new WorkerSettings(defaults.getConcurrency(), defaults.getMaxRetries(),
					defaults.getShutdownTimeout(), defaults.getPollTimeout());
		}
		return new WorkerSettings(orDefault(queue.getConcurrency(), defaults.getConcurrency()),
				orDefault(queue.getMaxRetries(), defaults.getMaxRetries()),
				orDefault(queue.getShutdownTimeout(), defaults.getShutdownTimeout()),
				orDefault(queue.getPollTimeout(), defaults.getPollTimeout()));
	}

	/**
	 * Returns where the queue named {@code name} keeps its items.
	 * @param name the queue's name
	 * @return its backend, or the defaults' when it sets none
	 */
	WorkQueueProperties.Backend backendOf(String name) {
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		WorkQueueProperties.Backend backend = (queue != null) ? queue.getBackend() : null;
		return (backend != null) ? backend : this.properties.getDefaults().getBackend();
	}

	@Override
	public String backend(String name) {
		return this.built.containsKey(name) ? backendOf(name).name().toLowerCase(Locale.ROOT) : "unknown";
	}

	private WorkQueueProperties.@Nullable RateLimit rateLimitOf(String name) {
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		WorkQueueProperties.RateLimit rateLimit = (queue != null) ? queue.getRateLimiter() : null;
		return (rateLimit != null) ? rateLimit : this.properties.getDefaults().getRateLimiter();
	}

	/**
	 * Returns whether the metrics of the queue named {@code name} record the two latency
	 * timers: its own {@code latency-timers}, or the defaults' when it sets none.
	 */
	private boolean latencyTimersOf(String name) {
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		Boolean latencyTimers = (queue != null) ? queue.getLatencyTimers() : null;
		return (latencyTimers != null) ? latencyTimers : this.properties.getDefaults().isLatencyTimers();
	}

	private static <T> T orDefault(@Nullable T value, T defaultValue) {
		return (value != null) ? value : defaultValue;
	}

}
