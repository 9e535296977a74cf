package dev.workqueue.spring.autoconfigure;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiterFactory;

/**
 * The calls the starter makes on a backend's queue builder, which every backend makes
 * alike: each backend keeps one, made of its builder's and its customizer's method
 * references, and {@link #build} takes a builder with the store's own options set and
 * builds the queue its settings describe. Immutable.
 *
 * @param <B> the backend's queue builder
 * @param <C> the backend's customizer of that builder
 * @param customize calls one customizer with the queue's name and the builder
 * @param metrics sets the builder's metrics hook
 * @param rateLimiters the builder's maker of the queue's limiters: on the builder's store
 * and clock, so asked for after the customizers
 * @param starvationTimeout sets the builder's starvation timeout
 * @param priorityQueue builds a priority queue with a limiter
 * @param plainQueue builds a rate-limiting queue with a limiter
 */
record QueueBuilderCalls<B, C>(Customize<C, B> customize, BiConsumer<B, WorkQueueMetrics> metrics,
		Function<B, RateLimiterFactory<Object>> rateLimiters, BiConsumer<B, Duration> starvationTimeout,
		BiFunction<B, RateLimiter<Object>, ? extends RateLimitingQueue<Object>> priorityQueue,
		BiFunction<B, RateLimiter<Object>, ? extends RateLimitingQueue<Object>> plainQueue) {

	/**
	 * Builds the queue of {@code settings} with {@code builder}: sets its metrics (a
	 * no-op hook without a {@link WorkQueueMetricsFactory}), applies every customizer in
	 * order, builds the limiter from the builder's limiters, then the queue, a
	 * {@link dev.workqueue.PriorityQueue} when its priority is enabled.
	 * @param settings the queue's settings
	 * @param builder the backend's builder, named and with the store's options set
	 * @param metrics the metrics of each queue, if any
	 * @param customizers the backend's customizers
	 * @return the queue, its limiter, and the store of its failure counts
	 */
	QueueBackend.BuiltQueue build(QueueSettings settings, B builder, ObjectProvider<WorkQueueMetricsFactory> metrics,
			ObjectProvider<C> customizers) {
		String name = settings.name();
		WorkQueueMetricsFactory metricsFactory = metrics.getIfAvailable();
		this.metrics.accept(builder, (metricsFactory != null) ? metricsFactory.metrics(name, settings.latencyTimers())
				: WorkQueueMetrics.NOOP);
		customizers.orderedStream().forEach((customizer) -> this.customize.apply(customizer, name, builder));
		RateLimiterFactory<Object> limiters = this.rateLimiters.apply(builder);
		RateLimiter<Object> rateLimiter = settings.rateLimiter().build(limiters);
		RateLimitingQueue<Object> queue = settings.priority()
			.build((timeout) -> this.starvationTimeout.accept(builder, timeout),
					() -> this.priorityQueue.apply(builder, rateLimiter),
					() -> this.plainQueue.apply(builder, rateLimiter));
		return new QueueBackend.BuiltQueue(settings, queue, rateLimiter, limiters.attempts());
	}

	/**
	 * Calls a customizer, as each backend's customizer interface declares it.
	 *
	 * @param <C> the customizer
	 * @param <B> the builder it customizes
	 */
	@FunctionalInterface
	interface Customize<C, B> {

		void apply(C customizer, String queueName, B builder);

	}

}
