package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * client-go's shutdown and overflow rules on Redis: adds after shutdown are ignored from
 * any thread, racing the shutdown too; a shutdown releases a pending drain; a get racing
 * the shutdown orphans no lease; huge delays are clamped and never fire.
 */
@RequiresRedis
class RedisShutdownTests {

	private static final Duration SOON = Duration.ofSeconds(10);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	private RateLimitingQueue<String> instance() {
		return this.redis.track(this.redis.builder("q")
			.clock(this.clock)
			.buildRateLimitingQueue(
					new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	private RedisWorkQueue<?> handle(RateLimitingQueue<String> queue) {
		return (RedisWorkQueue<?>) queue.capability(SharedWorkQueue.class).orElseThrow();
	}

	@Test
	void addsAfterShutDownAreIgnoredEvenOnceTheHandleHasGivenItsConnectionsBack() {
		RateLimitingQueue<String> queue = instance();
		queue.shutDown();
		await().atMost(SOON).until(() -> RedisFixture.timer(handle(queue)).stopped());
		queue.add("a");
		queue.addAfter("b", Duration.ZERO);
		queue.addAfter("c", Duration.ofSeconds(1));
		queue.addRateLimited("d");
		assertThat(this.redis.redis()
			.exists(this.redis.key("q", "queue"), this.redis.key("q", "waiting"), this.redis.key("q", "dirty")))
			.isZero();
		assertThat(queue.numRequeues("d")).as("an ignored add is no requeue").isZero();
	}

	@Test
	void addsRacingShutDownFromManyThreadsNeverThrow() throws Exception {
		for (int round = 0; round < 20; round++) {
			RateLimitingQueue<String> queue = instance();
			AtomicReference<Throwable> thrown = new AtomicReference<>();
			CountDownLatch started = new CountDownLatch(4);
			List<Thread> adders = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				int id = t;
				Thread adder = new Thread(() -> {
					started.countDown();
					try {
						for (int i = 0; i < 50; i++) {
							switch (i % 3) {
								case 0 -> queue.add("item-" + id + "-" + i);
								case 1 -> queue.addAfter("item-" + id + "-" + i, Duration.ofSeconds(1));
								default -> queue.addRateLimited("item-" + id + "-" + i);
							}
						}
					}
					catch (Throwable ex) {
						thrown.compareAndSet(null, ex);
					}
				});
				adder.start();
				adders.add(adder);
			}
			started.await();
			queue.shutDown();
			for (Thread adder : adders) {
				adder.join(TimeUnit.SECONDS.toMillis(10));
			}
			assertThat(thrown.get()).as("round %d", round).isNull();
		}
	}

	@Test
	void shutDownReleasesAPendingDrain() throws Exception {
		RateLimitingQueue<String> queue = instance();
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		CompletableFuture<Void> drain = CompletableFuture.runAsync(queue::shutDownWithDrain);
		await().atMost(SOON).until(queue::isShuttingDown);
		assertThat(drain).isNotDone();
		queue.shutDown();
		drain.get(10, TimeUnit.SECONDS);
		queue.done("x");
		assertThat(queue.stats().processing()).isZero();
	}

	@Test
	void aSecondDrainDoesNotReleaseTheFirstAndDoneReleasesBoth() throws Exception {
		RateLimitingQueue<String> queue = instance();
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		CompletableFuture<Void> first = CompletableFuture.runAsync(queue::shutDownWithDrain);
		await().atMost(SOON).until(queue::isShuttingDown);
		CompletableFuture<Void> second = CompletableFuture.runAsync(queue::shutDownWithDrain);
		await().during(Duration.ofMillis(200)).atMost(SOON).until(() -> !first.isDone() && !second.isDone());
		queue.done("x");
		CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
	}

	@Test
	void aDrainWakesEveryBlockedGet() throws Exception {
		for (int round = 0; round < 20; round++) {
			RateLimitingQueue<String> queue = instance();
			List<CompletableFuture<String>> gets = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				gets.add(CompletableFuture.supplyAsync(() -> {
					try {
						return queue.get();
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}));
			}
			queue.shutDownWithDrain();
			for (CompletableFuture<String> get : gets) {
				assertThat(get.get(10, TimeUnit.SECONDS)).as("round %d", round).isNull();
			}
		}
	}

	@Test
	void aDelayOnAClockOfItsOwnIsNeverReadyBeforeItsDueNanosecond() {
		// The scripts read the time in whole µs, rounded down: the delay makes up the
		// rest.
		assertThat(Delays.micros(999, 1)).isEqualTo(1);
		assertThat(Delays.micros(999, 2)).isEqualTo(2);
		assertThat(Delays.micros(1000, 1)).isEqualTo(1);
		assertThat(Delays.micros(1500, 400)).isEqualTo(1);
		assertThat(Delays.micros(1500, 600)).isEqualTo(2);
		assertThat(Delays.micros(2000, 1000)).isEqualTo(1);
		assertThat(Delays.micros(0, Long.MAX_VALUE)).isEqualTo(Delays.MAX_MICROS);
	}

	@Test
	void aGetRacingShutDownHandsOutNothingOrKeepsItsConnectionUntilDone() throws Exception {
		for (int round = 0; round < 30; round++) {
			RateLimitingQueue<String> queue = instance();
			queue.add("x-" + round);
			CompletableFuture<String> got = CompletableFuture.supplyAsync(() -> {
				try {
					return queue.poll(Duration.ofSeconds(1));
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			queue.shutDown();
			String item = got.get(10, TimeUnit.SECONDS);
			if (item != null) {
				queue.done(item);
			}
			await().atMost(SOON).until(() -> RedisFixture.timer(handle(queue)).stopped());
			assertThat(this.redis.redis().hlen(this.redis.key("q", "leases"))).as("round %d: no orphaned lease", round)
				.isZero();
			if (item == null) {
				assertThat(this.redis.redis().lrange(this.redis.key("q", "queue"), 0, -1)).as("round %d", round)
					.containsExactly("x-" + round);
				this.redis.redis().del(this.redis.key("q", "queue"), this.redis.key("q", "dirty"));
			}
		}
	}

	@Test
	void aHugeDelayIsClampedAndNeverFires() throws Exception {
		RateLimitingQueue<String> queue = instance();
		// A queue of its own: the handles of one queue use one kind of clock.
		DelayingQueue<String> systemClock = this.redis.track(this.redis.builder("q-server").buildDelayingQueue());
		queue.addAfter("fake", Duration.ofSeconds(Long.MAX_VALUE));
		systemClock.addAfter("real", Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
		assertThat(queue.stats().waiting()).isOne();
		assertThat(systemClock.stats().waiting()).isOne();
		this.clock.step(Duration.ofDays(365 * 100));
		RedisFixture.timer(handle(queue)).wake();
		await().during(Duration.ofMillis(300)).atMost(SOON).until(() -> queue.size() == 0);
		assertThat(queue.poll(Duration.ZERO)).isNull();
		assertThat(systemClock.poll(Duration.ZERO)).isNull();
		assertThat(queue.stats().waiting()).isOne();
		assertThat(systemClock.stats().waiting()).isOne();
		assertThat(Delays.micros(Long.MAX_VALUE)).isEqualTo(Long.toString(Delays.MAX_MICROS));
	}

}
