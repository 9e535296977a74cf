package dev.workqueue.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;

import dev.workqueue.PriorityQueue;
import dev.workqueue.PriorityQueueContract;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;

/**
 * Core's {@link PriorityQueueContract}, the priority rules every backend keeps, on Redis:
 * each test's handles share one queue under a key prefix of the test's own, on the
 * contract's clock.
 */
@RequiresRedis
class RedisPriorityQueueContractTests extends PriorityQueueContract {

	private final RedisFixture redis = new RedisFixture();

	@Override
	protected PriorityQueue<String> newQueue(Duration starvationTimeout) {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("contract").clock(this.clock);
		if (starvationTimeout != null) {
			builder.starvationTimeout(starvationTimeout);
		}
		return this.redis.track(builder
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	@AfterEach
	void deleteKeys() throws Exception {
		this.redis.close();
	}

}
