package dev.workqueue;

import java.time.Duration;

import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;

/**
 * The priority queue's rules on the queue {@link WorkQueues} builds.
 */
class InMemoryPriorityQueueContractTests extends PriorityQueueContract {

	@Override
	protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
		WorkQueues.Builder<String> builder = WorkQueues.<String>builder().clock(this.clock);
		if (starvationTimeout != null) {
			builder.starvationTimeout(starvationTimeout);
		}
		return builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)));
	}

}
