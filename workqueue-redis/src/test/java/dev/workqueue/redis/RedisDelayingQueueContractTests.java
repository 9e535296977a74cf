package dev.workqueue.redis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import dev.workqueue.DelayingQueue;
import dev.workqueue.DelayingQueueContract;
import dev.workqueue.shared.SplitQueues;

/**
 * Core's {@link DelayingQueueContract}, the semantics every backend keeps, on Redis: each
 * test's handles share one queue under a key prefix of the test's own. {@link TwoHandles}
 * runs the same rules with every add made through one handle and every take and done
 * through another.
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

	/**
	 * The contract through two handles sharing the queue: adds on one, takes on the
	 * other.
	 */
	@Nested
	@RequiresRedis
	class TwoHandles extends DelayingQueueContract {

		private final RedisFixture redis = new RedisFixture();

		@Override
		protected DelayingQueue<String> newQueue() {
			return SplitQueues.delaying(handle(), handle());
		}

		private DelayingQueue<String> handle() {
			return this.redis.track(this.redis.builder("contract").clock(this.clock).buildDelayingQueue());
		}

		@Override
		protected boolean drainsAfterShutDown() {
			return false;
		}

		@AfterEach
		void deleteKeys() throws Exception {
			this.redis.close();
		}

	}

}
