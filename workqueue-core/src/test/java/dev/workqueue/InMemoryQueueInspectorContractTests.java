package dev.workqueue;

import java.time.Duration;

import org.junit.jupiter.api.Nested;

import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.shared.QueueInspectorContract;
import dev.workqueue.shared.QueueInspectorContract.Handles;

/**
 * The shared {@link QueueInspectorContract} on every kind of in-memory queue: each test's
 * queue is one queue, and every handle of it that queue itself. The plain and delaying
 * queues record no metrics, so they do not date their hand-outs; the rate-limiting and
 * priority queues do.
 */
class InMemoryQueueInspectorContractTests {

	/** A hook that records nothing, but makes the queue date its nodes. */
	private static final WorkQueueMetrics DATING = new WorkQueueMetrics() {
	};

	private static WorkQueues.Builder<String> builder(int keepGivenUp) {
		return WorkQueues.<String>builder().name("inspected").givenUp(keepGivenUp, Duration.ofHours(2));
	}

	/** The same queue on every open. */
	private static Handles handles(WorkQueue<String> queue) {
		return new Handles() {

			@Override
			public WorkQueue<String> open() {
				return queue;
			}

			@Override
			public void close() {
				queue.shutDown();
			}

		};
	}

	@Nested
	class Plain extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles(builder(keepGivenUp).buildQueue());
		}

		@Override
		protected boolean datesHandOuts() {
			return false;
		}

	}

	@Nested
	class Delaying extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles(builder(keepGivenUp).codec(ItemCodec.strings()).buildDelayingQueue());
		}

		@Override
		protected boolean datesHandOuts() {
			return false;
		}

	}

	@Nested
	class RateLimiting extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles(builder(keepGivenUp).metrics(DATING)
				.buildRateLimitingQueue(RateLimiters.defaultControllerRateLimiter()));
		}

	}

	@Nested
	class Priority extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles(builder(keepGivenUp).metrics(DATING)
				.starvationTimeout(Duration.ofHours(1))
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		}

	}

}
