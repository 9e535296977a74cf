package dev.workqueue.spring.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.spring.worker.WorkerSettings;
import dev.workqueue.time.Clock;

/**
 * Turns {@link WorkQueueProperties} into objects: builds the queue of each
 * {@code workqueue.queues} entry, with its rate limiter, and resolves the worker settings
 * of any queue. A queue's missing settings come from the defaults.
 * <p>
 * The queue beans are created by calling {@link #create(String)} on the bean of this
 * class named {@link #BEAN_NAME}. Thread-safe: the limiters built are kept in a
 * concurrent map.
 */
final class WorkQueueFactory implements WorkQueueDetails {

	static final String BEAN_NAME = "dev.workqueue.spring.autoconfigure.workQueueFactory";

	private final WorkQueueProperties properties;

	private final Clock clock;

	private final ObjectProvider<WorkQueueCustomizer> customizers;

	private final ObjectProvider<RedisQueueSource> redisQueues;

	private final Map<String, RateLimiter<?>> rateLimiters = new ConcurrentHashMap<>();

	WorkQueueFactory(WorkQueueProperties properties, Clock clock, ObjectProvider<WorkQueueCustomizer> customizers,
			ObjectProvider<RedisQueueSource> redisQueues) {
		this.properties = properties;
		this.clock = clock;
		this.customizers = customizers;
		this.redisQueues = redisQueues;
	}

	/**
	 * Builds the queue named {@code name}: named, on the clock, customized by every
	 * {@link WorkQueueCustomizer} in order, with the rate limiter its properties
	 * describe.
	 * @param name the queue's name
	 * @return a new queue, of any item type
	 */
	RateLimitingQueue<?> create(String name) {
		if (backendOf(name) == WorkQueueProperties.Backend.REDIS) {
			RedisQueueSource redis = this.redisQueues.getIfAvailable();
			if (redis == null) {
				throw new IllegalStateException("Queue '" + name + "' has backend redis, but workqueue-redis and "
						+ "Lettuce are not on the class path: add dev.workqueue:workqueue-redis and "
						+ "spring-boot-starter-data-redis");
			}
			RedisQueueSource.Built built = redis.create(name, rateLimitOf(name));
			this.rateLimiters.put(name, built.rateLimiter());
			return built.queue();
		}
		RateLimiter<Object> rateLimiter = new LocalRateLimiterKit(this.clock).build(rateLimitOf(name));
		WorkQueues.Builder<Object> builder = WorkQueues.builder().name(name).clock(this.clock);
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(name, builder));
		RateLimitingQueue<Object> queue = builder.buildRateLimitingQueue(rateLimiter);
		this.rateLimiters.put(name, rateLimiter);
		return queue;
	}

	/**
	 * Returns the rate limiter of the queue named {@code name}, if this factory built
	 * that queue.
	 * @param name the queue's name
	 * @return the limiter, or empty
	 */
	@Override
	public Optional<RateLimiter<?>> rateLimiter(String name) {
		return Optional.ofNullable(this.rateLimiters.get(name));
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
					defaults.getShutdownTimeout());
		}
		return new WorkerSettings(orDefault(queue.getConcurrency(), defaults.getConcurrency()),
				orDefault(queue.getMaxRetries(), defaults.getMaxRetries()),
				orDefault(queue.getShutdownTimeout(), defaults.getShutdownTimeout()));
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
		return this.rateLimiters.containsKey(name) ? backendOf(name).name().toLowerCase(Locale.ROOT) : "unknown";
	}

	private WorkQueueProperties.@Nullable RateLimit rateLimitOf(String name) {
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		WorkQueueProperties.RateLimit rateLimit = (queue != null) ? queue.getRateLimiter() : null;
		return (rateLimit != null) ? rateLimit : this.properties.getDefaults().getRateLimiter();
	}

	private static <T> T orDefault(@Nullable T value, T defaultValue) {
		return (value != null) ? value : defaultValue;
	}

}
