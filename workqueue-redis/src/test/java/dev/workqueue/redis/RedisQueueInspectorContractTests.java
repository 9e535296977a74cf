package dev.workqueue.redis;

import java.time.Duration;
import java.util.function.Function;

import org.junit.jupiter.api.Nested;

import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.shared.QueueInspectorContract;
import dev.workqueue.shared.QueueInspectorContract.Handles;

/**
 * Core's {@link QueueInspectorContract}, the rules of a queue's inspector on every
 * backend, on Redis: each test's queue lives under a {@link RedisFixture}'s prefix of its
 * own, and each handle opened is another instance of it, on the fixture's client. Run on
 * a delaying queue (the list layout) and a priority queue (the priority layout).
 */
@RequiresRedis
class RedisQueueInspectorContractTests {

	private static final Duration RETENTION = Duration.ofHours(2);

	@Nested
	class ListLayout extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles((redis) -> redis.builder("inspected").givenUp(keepGivenUp, RETENTION).buildDelayingQueue());
		}

	}

	@Nested
	class PriorityLayout extends QueueInspectorContract {

		@Override
		protected Handles newQueue(int keepGivenUp) {
			return handles((redis) -> redis.builder("inspected")
				.givenUp(keepGivenUp, RETENTION)
				.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		}

	}

	private static Handles handles(Function<RedisFixture, WorkQueue<String>> open) {
		RedisFixture redis = new RedisFixture();
		return new Handles() {

			@Override
			public WorkQueue<String> open() {
				return redis.track(open.apply(redis));
			}

			@Override
			public void close() throws Exception {
				redis.close();
			}

		};
	}

}
