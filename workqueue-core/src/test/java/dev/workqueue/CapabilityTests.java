package dev.workqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.SharedWorkQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WorkQueue#capability}: found through every queue {@link WorkQueues} builds, and
 * never a queue interface that the queue's kind leaves out.
 */
class CapabilityTests {

	private final ItemExponentialFailureRateLimiter<String> limiter = new ItemExponentialFailureRateLimiter<>(
			Duration.ofMillis(1), Duration.ofSeconds(1));

	@Test
	void everyBuiltQueueHasAPollerFactory() {
		WorkQueues.Builder<String> builder = WorkQueues.builder();
		assertThat(builder.buildQueue().capability(PollerFactory.class)).isPresent();
		assertThat(builder.buildDelayingQueue().capability(PollerFactory.class)).isPresent();
		assertThat(builder.buildRateLimitingQueue(this.limiter).capability(PollerFactory.class)).isPresent();
		assertThat(builder.buildPriorityQueue(this.limiter).capability(PollerFactory.class)).isPresent();
	}

	@Test
	void aPlainQueueIsNotADelayingQueueThroughTheLookupEither() {
		WorkQueue<String> queue = WorkQueues.<String>builder().buildQueue();
		assertThat(queue).isNotInstanceOf(DelayingQueue.class);
		assertThat(queue.capability(DelayingQueue.class)).isEmpty();
		assertThat(queue.capability(WorkQueue.class)).containsSame(queue);
	}

	@Test
	void aQueueAnswersForItsOwnKind() {
		RateLimitingQueue<String> queue = WorkQueues.<String>builder().buildRateLimitingQueue(this.limiter);
		assertThat(queue.capability(RateLimitingQueue.class)).containsSame(queue);
		assertThat(queue.capability(PriorityQueue.class)).isEmpty();
	}

	@Test
	void aQueueOfThisProcessIsNotShared() {
		assertThat(WorkQueues.<String>builder().buildRateLimitingQueue(this.limiter).capability(SharedWorkQueue.class))
			.isEmpty();
	}

}
