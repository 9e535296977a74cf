package dev.workqueue.redis;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The handles of one queue must time leases and delays alike: a handle on the server's
 * clock would take at once the items a handle on a clock of its own holds, and the other
 * way round never. A handle that would join live handles of the other kind is refused.
 */
@RequiresRedis
class RedisClockKindTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private static RedisWorkQueue<?> handle(DelayingQueue<String> queue) {
		return (RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
	}

	private DelayingQueue<String> live(RedisWorkQueues.Builder<String> builder) {
		DelayingQueue<String> queue = this.redis.track(builder.buildDelayingQueue());
		await().atMost(SOON).until(() -> handle(queue).timer().reporter());
		return queue;
	}

	@Test
	void aHandleOnTheServersClockIsRefusedByAQueueWhoseHandlesUseAClockOfTheirOwn() throws Exception {
		DelayingQueue<String> fake = live(this.redis.builder("q").clock(this.clock));
		fake.add("x");
		assertThat(fake.poll(Duration.ZERO)).isEqualTo("x");
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").buildDelayingQueue())
			.withMessageContaining("Queue 'q'")
			.withMessageContaining("a clock given to its builder")
			.withMessageContaining("the Redis server's clock");
		assertThat(this.redis.redis().hlen(this.redis.key("q", "leases"))).as("x stays with its holder").isOne();
		assertThat(this.redis.track(this.redis.builder("q").clock(this.clock).buildDelayingQueue()).poll(Duration.ZERO))
			.as("a handle on the same kind of clock joins")
			.isNull();
		fake.done("x");
	}

	@Test
	void aHandleOnAClockOfItsOwnIsRefusedByAQueueWhoseHandlesUseTheServersClock() {
		live(this.redis.builder("q"));
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").clock(this.clock).buildQueue())
			.withMessageContaining("the Redis server's clock, and this one with a clock given to its builder");
	}

}
