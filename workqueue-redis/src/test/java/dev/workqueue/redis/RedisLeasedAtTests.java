package dev.workqueue.redis;

import java.time.Duration;

import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leased-at hash keeps a time only while its item's lease lasts: whatever ends the
 * lease (done, hand-back, expiry) deletes it, so nothing leaks however many leases pass.
 */
@RequiresRedis
class RedisLeasedAtTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private WorkQueue<String> queue(String layout) {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("q").clock(this.clock).lease(LEASE);
		return this.redis.track(layout.equals("priority")
				? builder.buildPriorityQueue(
						new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1)))
				: builder.buildDelayingQueue());
	}

	private long leasedAt() {
		return this.redis.redis().hlen(this.redis.key("q", "leased-at"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "plain", "priority" })
	void everyWayALeaseEndsForgetsWhenItWasGranted(String layout) throws Exception {
		WorkQueue<String> queue = queue(layout);
		var shared = queue.capability(SharedWorkQueue.class).orElseThrow();
		for (int round = 0; round < 20; round++) {
			for (int i = 0; i < 3; i++) {
				queue.add(round + "-" + i);
			}
			String done = queue.poll(Duration.ZERO);
			String handedBack = queue.poll(Duration.ZERO);
			String expiring = queue.poll(Duration.ZERO);
			assertThat(leasedAt()).as("one time per lease held").isEqualTo(3);
			queue.done(done);
			assertThat(leasedAt()).as("after the done").isEqualTo(2);
			shared.handBack(handedBack, Duration.ZERO);
			assertThat(leasedAt()).as("after the hand-back").isOne();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo(handedBack);
			queue.done(handedBack);
			assertThat(leasedAt()).isOne();
			// The lease of the third runs out: the handle stops renewing once it is done
			// elsewhere, so it is taken over by deleting its token (a lost holder).
			this.redis.redis().hset(this.redis.key("q", "leases"), expiring, "someone-else");
			this.clock.step(LEASE.plusSeconds(1));
			await().atMost(Duration.ofSeconds(10)).until(() -> leasedAt() == 0);
			// Its worker finishes late (fenced off), then it is handed out again.
			queue.done(expiring);
			assertThat(queue.poll(Duration.ZERO)).as("reaped and queued again").isEqualTo(expiring);
			queue.done(expiring);
		}
		assertThat(this.redis.redis().exists(this.redis.key("q", "leased-at"))).isZero();
	}

}
