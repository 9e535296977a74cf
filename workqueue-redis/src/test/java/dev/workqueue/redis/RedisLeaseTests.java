package dev.workqueue.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases are kept by lease, not by item: a handle never hands out an item one of its own
 * workers still holds, and a worker whose lease was lost changes nothing with its late
 * {@code done}, however the lease was lost.
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
	void aStaleHoldersLateDoneNeverEndsTheFreshLeaseOfItsOwnHandle() throws Exception {
		DelayingQueue<String> handle = instance();
		DelayingQueue<String> other = instance();
		handle.add("x");
		String firstWorker = handle.poll(Duration.ZERO);
		assertThat(firstWorker).isEqualTo("x");
		expireLeaseByHand("x");
		// A second worker of the same handle leases x again: parked, not handed out.
		assertThat(handle.poll(Duration.ZERO)).as("its own worker still holds x").isNull();
		assertThat(other.poll(Duration.ZERO)).as("the parked lease is live: nobody else gets x").isNull();
		assertThat(this.redis.redis().zcard(this.redis.key("q", "processing"))).isOne();
		// The parked lease is renewed with the others.
		for (int i = 0; i < 3; i++) {
			long nowMicros = this.redis.scriptMicros(this.clock);
			this.clock.step(Duration.ofSeconds(1));
			await().atMost(SOON)
				.until(() -> this.redis.redis().zscore(this.redis.key("q", "processing"), "x") > nowMicros + 3_000_000);
		}
		assertThat(other.poll(Duration.ZERO)).isNull();
		assertThat(((SharedQueue) other).stalled()).isZero();
		// The first worker's late done: fenced off, and x runs again, after.
		handle.done(firstWorker);
		assertThat(other.poll(Duration.ZERO)).isEqualTo("x");
		assertThat(handle.poll(Duration.ZERO)).as("never two holders").isNull();
		other.done("x");
		assertThat(other.stats().processing()).isZero();
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"), this.redis.key("q", "dirty"))).isZero();
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

	@Test
	void tokensAreNeverRepeatedByAnyHandle() throws Exception {
		DelayingQueue<String> a = instance();
		DelayingQueue<String> b = instance();
		for (int i = 0; i < 20; i++) {
			a.add("item-" + i);
		}
		for (int i = 0; i < 10; i++) {
			assertThat(a.poll(Duration.ZERO)).isNotNull();
			assertThat(b.poll(Duration.ZERO)).isNotNull();
		}
		List<String> tokens = this.redis.redis().hvals(this.redis.key("q", "leases"));
		assertThat(tokens).hasSize(20).doesNotHaveDuplicates();
	}

}
