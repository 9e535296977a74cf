package dev.workqueue.redis;

import org.junit.jupiter.api.AfterEach;

import dev.workqueue.DelayingQueue;
import dev.workqueue.DelayingQueueContract;

/**
 * Core's {@link DelayingQueueContract}, the semantics every backend keeps, on Redis: each
 * test's handles share one queue under a key prefix of the test's own.
 */
@RequiresRedis
class RedisDelayingQueueContractTests extends DelayingQueueContract {

	private final RedisFixture redis = new RedisFixture();

	@Override
	protected DelayingQueue<String> newQueue() {
		return this.redis.track(this.redis.builder("contract").clock(this.clock).buildDelayingQueue());
	}

	@Override
	protected boolean drainsAfterShutDown() {
		// Shut down, a handle takes nothing more: what is queued stays for the others.
		return false;
	}

	@AfterEach
	void deleteKeys() throws Exception {
		this.redis.close();
	}

}
