package dev.workqueue.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueues;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The memory backend: builds the queues whose {@code backend} is {@code memory} with
 * core, in this JVM, on the application's clock, with the metrics hook of the
 * {@link WorkQueueMetricsFactory} if there is one, customized by every
 * {@link WorkQueueCustomizer} bean in order (priority queues too). Failures are counted
 * in this JVM too.
 */
final class MemoryBackend implements QueueBackend {

	private final Clock clock;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<WorkQueueCustomizer> customizers;

	MemoryBackend(Clock clock, ObjectProvider<WorkQueueMetricsFactory> metrics,
			ObjectProvider<WorkQueueCustomizer> customizers) {
		this.clock = clock;
		this.metrics = metrics;
		this.customizers = customizers;
	}

	@Override
	public BuiltQueue create(String name, WorkQueueProperties.@Nullable RateLimit rateLimit, QueuePriority priority,
			boolean latencyTimers) {
		RateLimiter<Object> rateLimiter = new LocalRateLimiterKit(this.clock).build(rateLimit);
		WorkQueues.Builder<Object> builder = WorkQueues.builder().name(name).clock(this.clock);
		this.metrics.ifAvailable((metrics) -> builder.metrics(metrics.metrics(name, latencyTimers)));
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(name, builder));
		RateLimitingQueue<Object> queue = priority.build(builder::starvationTimeout,
				() -> builder.buildPriorityQueue(rateLimiter), () -> builder.buildRateLimitingQueue(rateLimiter));
		return new BuiltQueue(queue, rateLimiter, FailureCounts.inMemory());
	}

}
