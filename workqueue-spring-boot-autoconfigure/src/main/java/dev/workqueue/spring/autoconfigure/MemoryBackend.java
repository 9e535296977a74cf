package dev.workqueue.spring.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;

import dev.workqueue.WorkQueues;
import dev.workqueue.spring.WorkQueueCustomizer;
import dev.workqueue.time.Clock;

/**
 * The memory backend: builds the queues whose {@code backend} is {@code memory} with
 * core, in this JVM, on the application's clock, with the metrics hook of the
 * {@link WorkQueueMetricsFactory} if there is one, customized by every
 * {@link WorkQueueCustomizer} bean in order (priority queues too). The limiters are
 * core's on the same clock, and failures are counted in this JVM too. A queue keeps its
 * given-up items in this JVM, bounded by its {@code given-up} settings, and takes the
 * {@code <queue>ItemCodec} bean as its codec when there is one (to show its items and
 * read an operator's text), none otherwise. Thread-safe.
 */
final class MemoryBackend implements QueueBackend {

	private final Clock clock;

	private final BeanFactory beanFactory;

	private final ObjectProvider<WorkQueueMetricsFactory> metrics;

	private final ObjectProvider<WorkQueueCustomizer> customizers;

	private final QueueBuilderCalls<WorkQueues.Builder<Object>, WorkQueueCustomizer> calls;

	MemoryBackend(Clock clock, BeanFactory beanFactory, ObjectProvider<WorkQueueMetricsFactory> metrics,
			ObjectProvider<WorkQueueCustomizer> customizers) {
		this.clock = clock;
		this.beanFactory = beanFactory;
		this.metrics = metrics;
		this.customizers = customizers;
		LocalRateLimiters limiters = new LocalRateLimiters(clock);
		this.calls = new QueueBuilderCalls<>(WorkQueueCustomizer::customize, WorkQueues.Builder::metrics,
				(builder) -> limiters, WorkQueues.Builder::starvationTimeout, WorkQueues.Builder::buildPriorityQueue,
				WorkQueues.Builder::buildRateLimitingQueue);
	}

	@Override
	public BuiltQueue create(QueueSettings settings) {
		String name = settings.name();
		WorkQueues.Builder<Object> builder = WorkQueues.builder().name(name).clock(this.clock);
		// r40-core: uncomment the two calls below once core's builder has them (issue
		// 40); set before the customizers, which may set their own.
		// builder.givenUp(settings.givenUp().keep(), settings.givenUp().retention());
		// QueueItemCodecs.find(this.beanFactory, name).ifPresent(builder::codec);
		return this.calls.build(settings, builder, this.metrics, this.customizers);
	}

}
