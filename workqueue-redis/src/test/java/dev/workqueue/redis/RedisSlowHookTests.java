package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queues on one client share one timer thread, which renews the leases of all of
 * them: a metrics hook of one queue that takes its time never holds back the renewals of
 * another, whose items then stay with their holder.
 */
@RequiresRedis
class RedisSlowHookTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	/** Another instance: a client, so a timer thread, of its own. */
	private final RedisClient otherClient = RedisClient.create(RedisServers.shared());

	private final CountDownLatch hookCalled = new CountDownLatch(1);

	private final CountDownLatch hookReleased = new CountDownLatch(1);

	/** A hook that hangs in {@code stalled} until the test ends. */
	private final WorkQueueMetrics slowHook = new WorkQueueMetrics() {

		@Override
		public void stalled() {
			RedisSlowHookTests.this.hookCalled.countDown();
			try {
				RedisSlowHookTests.this.hookReleased.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	};

	@AfterEach
	void close() throws Exception {
		this.hookReleased.countDown();
		this.redis.close();
		this.otherClient.shutdown();
	}

	@Test
	void aSlowMetricsHookOfOneQueueNeverHoldsBackTheLeaseRenewalsOfAnother() throws Exception {
		// A lease that ran out, as a crashed instance leaves it: the first tick of the
		// queue "slow" hands the item back and calls its hook, which hangs.
		this.redis.redis().zadd(this.redis.key("slow", "processing"), -1, "z");
		this.redis.redis().hset(this.redis.key("slow", "leases"), "z", "crashed:1");
		this.redis.track(this.redis.builder("slow").clock(this.clock).metrics(this.slowHook).buildDelayingQueue());
		assertThat(this.hookCalled.await(SOON.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

		DelayingQueue<String> held = this.redis
			.track(this.redis.builder("held").clock(this.clock).lease(Duration.ofSeconds(3)).buildDelayingQueue());
		held.add("x");
		assertThat(held.poll(Duration.ZERO)).isEqualTo("x");
		String processing = this.redis.key("held", "processing");
		for (int second = 1; second <= 4; second++) {
			double expiry = this.redis.redis().zscore(processing, "x");
			this.clock.step(Duration.ofSeconds(1));
			await("the renewal of second " + second).atMost(SOON)
				.until(() -> this.redis.redis().zscore(processing, "x") > expiry);
		}
		DelayingQueue<String> other = this.redis.track(RedisWorkQueues.builder(this.otherClient, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("held")
			.clock(this.clock)
			.buildDelayingQueue());
		assertThat(other.poll(Duration.ZERO)).as("x stays with its holder").isNull();
		held.done("x");
		assertThat(this.redis.redis().exists(this.redis.key("held", "leases"), processing)).isZero();
	}

}
