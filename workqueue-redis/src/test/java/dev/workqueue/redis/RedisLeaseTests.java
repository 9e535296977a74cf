package dev.workqueue.redis;

import java.time.Duration;

import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases are kept by lease, not by item: a worker whose lease another instance took keeps
 * the item, counted as held by its handle, until its late {@code done}, which changes
 * nothing. Parking and tokens are core's {@code SharedQueueRules}, run by
 * {@link RedisSharedQueueContractTests}.
 */
@RequiresRedis
class RedisLeaseTests {

	private static final Duration SOON = Duration.ofSeconds(5);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private DelayingQueue<String> instance() {
		return this.redis
			.track(this.redis.builder("q").clock(this.clock).lease(Duration.ofSeconds(3)).buildDelayingQueue());
	}

	/** What the reaper does to a lease that ran out: the item goes back to the queue. */
	private void expireLeaseByHand(String item) {
		RedisCommands<String, String> redis = this.redis.redis();
		redis.zrem(this.redis.key("q", "processing"), item);
		redis.hdel(this.redis.key("q", "leases"), item);
		redis.hsetnx(this.redis.key("q", "dirty"), item, Long.toString(this.redis.scriptMicros(this.clock)));
		redis.rpush(this.redis.key("q", "queue"), item);
	}

	@Test
	void aLeaseLostToAnotherInstanceStaysWithItsWorkerUntilDoneAndItsDoneChangesNothing() throws Exception {
		DelayingQueue<String> handle = instance();
		DelayingQueue<String> other = instance();
		handle.add("x");
		assertThat(handle.poll(Duration.ZERO)).isEqualTo("x");
		expireLeaseByHand("x");
		assertThat(other.poll(Duration.ZERO)).isEqualTo("x");
		// The handle's next renewal finds its lease lost; its worker still holds x.
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> handle.stats().processing() == 1 && ((SharedQueue) handle).held() == 1);
		handle.add("y");
		assertThat(handle.poll(Duration.ZERO)).isEqualTo("y");
		handle.done("x");
		assertThat(other.stats().processing()).as("the late done did not end the other's lease").isEqualTo(2);
		other.done("x");
		handle.done("y");
		assertThat(other.stats().processing()).isZero();
	}

}
