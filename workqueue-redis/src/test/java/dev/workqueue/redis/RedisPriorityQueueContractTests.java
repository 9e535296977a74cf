package dev.workqueue.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueueContract;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.shared.SplitQueues;
import dev.workqueue.time.FakeClock;

/**
 * Core's {@link PriorityQueueContract}, the priority rules every backend keeps, on Redis:
 * each test's handles share one queue under a key prefix of the test's own, on the
 * contract's clock. {@link TwoHandles} runs the same rules with every add made through
 * one handle and every take and done through another.
 */
@RequiresRedis
class RedisPriorityQueueContractTests extends PriorityQueueContract {

	private final RedisFixture redis = new RedisFixture();

	@Override
	protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
		return build(this.redis, this.clock, starvationTimeout);
	}

	private static PriorityQueue<String> build(RedisFixture redis, FakeClock clock, Duration starvationTimeout) {
		RedisWorkQueues.Builder<String> builder = redis.builder("contract").clock(clock);
		if (starvationTimeout != null) {
			builder.starvationTimeout(starvationTimeout);
		}
		return redis.track(builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	@AfterEach
	void deleteKeys() throws Exception {
		this.redis.close();
	}

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other.
	 */
	@Nested
	@RequiresRedis
	class TwoHandles extends PriorityQueueContract {

		private final RedisFixture redis = new RedisFixture();

		@Override
		protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
			return SplitQueues.priority(build(this.redis, this.clock, starvationTimeout),
					build(this.redis, this.clock, starvationTimeout));
		}

		@AfterEach
		void deleteKeys() throws Exception {
			this.redis.close();
		}

	}

}
