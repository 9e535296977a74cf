package dev.workqueue.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handle whose start could not check its keys' types (Redis did not answer that check
 * in time) checks them before its first tick, as it subscribes and checks the mark then:
 * a plain queue that meets a priority queue of the same name is refused there too.
 */
@RequiresRedis
class RedisLateTypeCheckTests {

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	@Test
	void aTypeCheckTheStartCouldNotMakeIsMadeBeforeTheFirstTick() throws Exception {
		PriorityQueue<String> priority = this.redis.track(this.redis.builder("q")
			.clock(this.clock)
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
		priority.add("x", 1);
		this.redis.redis().scriptLoad(LuaScript.CHECK_TYPES.source());
		try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(RedisServers.shared().getPort())) {
			RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
			try {
				CountDownLatch release = new CountDownLatch(1);
				proxy.holdReplyTo(LuaScript.CHECK_TYPES.sha1(), release);
				WorkQueue<String> plain;
				try {
					plain = RedisWorkQueues.builder(client, ItemCodec.strings())
						.keyPrefix(this.redis.prefix)
						.name("q")
						.clock(this.clock)
						.commandTimeout(Duration.ofMillis(300))
						.buildQueue();
				}
				finally {
					release.countDown();
				}
				QueueTimer timer = RedisFixture
					.timer((RedisWorkQueue<?>) plain.capability(SharedWorkQueue.class).orElseThrow());
				await().atMost(Duration.ofSeconds(10)).until(() -> {
					timer.wake();
					this.clock.step(Duration.ofMillis(100));
					return plain.isShuttingDown();
				});
				plain.add("y");
			}
			finally {
				client.shutdown();
			}
		}
		assertThat(this.redis.redis().exists(this.redis.key("q", "queue"))).as("nothing added through it").isZero();
		assertThat(this.redis.redis().zcard(this.redis.key("q", "ready"))).isOne();
	}

}
