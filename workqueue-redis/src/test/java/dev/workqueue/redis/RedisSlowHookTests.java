package dev.workqueue.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.SharedWorkQueue;
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

	private final String clientName = "wq-hooks-" + UUID.randomUUID();

	/** A client whose connections the server lists by name. */
	private final RedisClient namedClient = RedisClient
		.create(RedisURI.builder(RedisServers.shared()).withClientName(this.clientName).build());

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
		this.namedClient.shutdown();
	}

	/**
	 * A lease that ran out, as a crashed instance leaves it: the queue's first tick hands
	 * the item back and tells the hook.
	 */
	private void strandedLease(String queue) {
		this.redis.redis().zadd(this.redis.key(queue, "processing"), -1, "z");
		this.redis.redis().hset(this.redis.key(queue, "leases"), "z", "crashed:1");
	}

	@Test
	void aSlowMetricsHookOfOneQueueNeverHoldsBackTheLeaseRenewalsOfAnother() throws Exception {
		// The first tick of the queue "slow" calls its hook, which hangs.
		strandedLease("slow");
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

	@Test
	void aHundredQueuesWithHangingHooksShareTwoConnectionsOneTimerThreadAndOneHookThread() throws Exception {
		Set<TimerThread> timers = new HashSet<>();
		for (int i = 0; i < 100; i++) {
			strandedLease("q" + i);
			DelayingQueue<String> queue = this.redis
				.track(RedisWorkQueues.builder(this.namedClient, ItemCodec.strings())
					.keyPrefix(this.redis.prefix)
					.name("q" + i)
					.clock(this.clock)
					.metrics(this.slowHook)
					.buildDelayingQueue());
			timers.add(RedisFixture.timer((RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow())
				.thread());
		}
		assertThat(this.hookCalled.await(SOON.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		// Every queue's first tick ran, though a hook hangs: each stranded lease is
		// handed back.
		await().atMost(SOON).until(() -> {
			for (int i = 0; i < 100; i++) {
				if (this.redis.redis().exists(this.redis.key("q" + i, "leases")) > 0) {
					return false;
				}
			}
			return true;
		});
		long connections = this.redis.redis()
			.clientList()
			.lines()
			.filter((line) -> line.contains(" name=" + this.clientName + " "))
			.count();
		assertThat(connections).as("one for commands, one for pub/sub").isEqualTo(2);
		assertThat(timers).hasSize(1);
		TimerThread timer = timers.iterator().next();
		assertThat(timer.thread()).as("one timer thread, alive").isNotNull();
		assertThat(timer.hookThreads()).as("one hook thread, hanging in the first hook").isOne();
	}

}
