package dev.workqueue.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.WorkQueues;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The memory backend: builds the queues whose {@code backend} is {@code memory} with
 * core, in this JVM, on the application's clock, with the metrics hook of the
 * {@link WorkQueueMetricsFactory} if there is one, customized by every
 * {@link WorkQueueCustomizer} bean in order (priority queues too). The limiters are
 * core's on the same clock, and failures are counted in this JVM too. Thread-safe.
 */
final class MemoryBackend implements QueueBackend {

	private final Clock clock;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<WorkQueueCustomizer> customizers;

	private final QueueBuilderCalls<WorkQueues.Builder<Object>, WorkQueueCustomizer> calls;

	MemoryBackend(Clock clock, ObjectProvider<WorkQueueMetricsFactory> metrics,
			ObjectProvider<WorkQueueCustomizer> customizers) {
		this.clock = clock;
		this.metrics = metrics;
		this.customizers = customizers;
		LocalRateLimiters limiters = new LocalRateLimiters(clock);
		this.calls = new QueueBuilderCalls<>(WorkQueueCustomizer::customize, WorkQueues.Builder::metrics,
				(builder) -> limiters, WorkQueues.Builder::starvationTimeout, WorkQueues.Builder::buildPriorityQueue,
				WorkQueues.Builder::buildRateLimitingQueue);
	}

	@Override
	public BuiltQueue create(QueueSettings settings) {
		return this.calls.build(settings, WorkQueues.builder().name(settings.name()).clock(this.clock), this.metrics,
				this.customizers);
	}

}
