package dev.workqueue.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.BucketRateLimiter;
import dev.workqueue.ratelimit.ItemBucketRateLimiter;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.ItemFastSlowRateLimiter;
import dev.workqueue.ratelimit.MaxOfRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.ratelimit.WithMaxWaitRateLimiter;
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

	private final Map<String, RateLimiter<?>> rateLimiters = new ConcurrentHashMap<>();

	WorkQueueFactory(WorkQueueProperties properties, Clock clock, ObjectProvider<WorkQueueCustomizer> customizers) {
		this.properties = properties;
		this.clock = clock;
		this.customizers = customizers;
	}

	/**
	 * Builds the queue named {@code name}: named, on the clock, customized by every
	 * {@link WorkQueueCustomizer} in order, with the rate limiter its properties
	 * describe.
	 * @param name the queue's name
	 * @return a new queue, of any item type
	 */
	RateLimitingQueue<?> create(String name) {
		RateLimiter<Object> rateLimiter = rateLimiter(rateLimitOf(name));
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

	private WorkQueueProperties.@Nullable RateLimit rateLimitOf(String name) {
		WorkQueueProperties.Queue queue = this.properties.getQueues().get(name);
		WorkQueueProperties.RateLimit rateLimit = (queue != null) ? queue.getRateLimiter() : null;
		return (rateLimit != null) ? rateLimit : this.properties.getDefaults().getRateLimiter();
	}

	private RateLimiter<Object> rateLimiter(WorkQueueProperties.@Nullable RateLimit properties) {
		if (properties == null) {
			return RateLimiters.defaultControllerRateLimiter(this.clock);
		}
		List<RateLimiter<Object>> limiters = new ArrayList<>();
		WorkQueueProperties.Exponential exponential = properties.getExponential();
		if (exponential != null) {
			limiters
				.add(new ItemExponentialFailureRateLimiter<>(exponential.getBaseDelay(), exponential.getMaxDelay()));
		}
		WorkQueueProperties.FastSlow fastSlow = properties.getFastSlow();
		if (fastSlow != null) {
			limiters.add(new ItemFastSlowRateLimiter<>(fastSlow.getFastDelay(), fastSlow.getSlowDelay(),
					fastSlow.getMaxFastAttempts()));
		}
		WorkQueueProperties.Bucket bucket = properties.getBucket();
		if (bucket != null) {
			limiters.add(new BucketRateLimiter<>(bucket.getQps(), bucket.getBurst(), this.clock));
		}
		WorkQueueProperties.Bucket itemBucket = properties.getItemBucket();
		if (itemBucket != null) {
			limiters.add(new ItemBucketRateLimiter<>(itemBucket.getQps(), itemBucket.getBurst(), this.clock));
		}
		RateLimiter<Object> limiter = combine(limiters);
		return (properties.getMaxWait() != null) ? new WithMaxWaitRateLimiter<>(limiter, properties.getMaxWait())
				: limiter;
	}

	@SuppressWarnings("unchecked")
	private RateLimiter<Object> combine(List<RateLimiter<Object>> limiters) {
		return switch (limiters.size()) {
			case 0 -> RateLimiters.defaultControllerRateLimiter(this.clock);
			case 1 -> limiters.get(0);
			default -> new MaxOfRateLimiter<>((RateLimiter<Object>[]) limiters.toArray(new RateLimiter<?>[0]));
		};
	}

	private static <T> T orDefault(@Nullable T value, T defaultValue) {
		return (value != null) ? value : defaultValue;
	}

}
