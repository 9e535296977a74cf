package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A codec that encodes equal items differently breaks its contract (the encoding is the
 * item's identity in Redis): a handle that meets two encodings of an item one of its
 * workers holds says so, naming the codec, and keeps the worker's lease.
 */
@RequiresRedis
class RedisCodecConsistencyTests {

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	/** Encodes each item with a count: equal items, different strings. */
	private final ItemCodec<String> countingCodec = new ItemCodec<>() {

		private final AtomicInteger encoded = new AtomicInteger();

		@Override
		public String encode(String item) {
			return item + "#" + this.encoded.incrementAndGet();
		}

		@Override
		public String decode(String encoded) {
			return encoded.substring(0, encoded.lastIndexOf('#'));
		}

		@Override
		public String toString() {
			return "CountingCodec";
		}

	};

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	@Test
	void aCodecThatEncodesEqualItemsDifferentlyIsNamedAndTheWorkersLeaseStands() throws Exception {
		DelayingQueue<String> queue = this.redis.track(RedisWorkQueues.builder(this.redis.client, this.countingCodec)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.lease(Duration.ofSeconds(3))
			.buildDelayingQueue());
		queue.add("x");
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		String tokenOfWorker = this.redis.redis().hget(this.redis.key("q", "leases"), "x#1");
		assertThatIllegalStateException().isThrownBy(() -> queue.poll(Duration.ZERO))
			.withMessageContaining("CountingCodec")
			.withMessageContaining("encodes equal items differently")
			.withMessageContaining("'x#2'")
			.withMessageContaining("'x#1'");
		assertThat(this.redis.redis().hgetall(this.redis.key("q", "leases"))).as("the worker's lease only")
			.containsExactly(java.util.Map.entry("x#1", tokenOfWorker));
		assertThat(this.redis.redis().lrange(this.redis.key("q", "queue"), 0, -1)).as("handed back")
			.containsExactly("x#2");
		queue.done("x");
		assertThat(this.redis.redis().hlen(this.redis.key("q", "leases"))).isZero();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		queue.done("x");
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"), this.redis.key("q", "queue"))).isZero();
	}

}
