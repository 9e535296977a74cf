package dev.workqueue;

import java.time.Duration;
import java.util.function.Function;

/**
 * The four queues {@link WorkQueues} builds, so that the plain-queue rules can be checked
 * against each layer and both ready orders, plus access to their internals for tests.
 */
enum QueueKind {

	PLAIN(WorkQueues.Builder::buildQueue),

	DELAYING(WorkQueues.Builder::buildDelayingQueue),

	RATE_LIMITING((builder) -> builder.buildRateLimitingQueue(new FixedDelayRateLimiter<>(Duration.ofSeconds(1)))),

	PRIORITY((builder) -> builder.buildPriorityQueue(new FixedDelayRateLimiter<>(Duration.ofSeconds(1))));

	private final Function<WorkQueues.Builder<String>, WorkQueue<String>> factory;

	QueueKind(Function<WorkQueues.Builder<String>, WorkQueue<String>> factory) {
		this.factory = factory;
	}

	WorkQueue<String> build(WorkQueues.Builder<String> builder) {
		return this.factory.apply(builder);
	}

	/** The engine at the bottom of any queue built by {@link WorkQueues}. */
	static DelayingWorkQueue<?> engine(WorkQueue<?> queue) {
		return (queue instanceof ForwardingWorkQueue<?, ?> wrapper) ? engine(wrapper.queue)
				: (DelayingWorkQueue<?>) queue;
	}

}
