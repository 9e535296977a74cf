package dev.workqueue.spring.autoconfigure;

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
	public BuiltQueue create(QueueSettings settings) {
		RateLimiter<Object> rateLimiter = new LocalRateLimiterKit(this.clock).build(settings.rateLimiter());
		WorkQueues.Builder<Object> builder = WorkQueues.builder().name(settings.name()).clock(this.clock);
		this.metrics
			.ifAvailable((metrics) -> builder.metrics(metrics.metrics(settings.name(), settings.latencyTimers())));
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(settings.name(), builder));
		RateLimitingQueue<Object> queue = settings.priority()
			.build(builder::starvationTimeout, () -> builder.buildPriorityQueue(rateLimiter),
					() -> builder.buildRateLimitingQueue(rateLimiter));
		return new BuiltQueue(settings, queue, rateLimiter, FailureCounts.inMemory());
	}

}
