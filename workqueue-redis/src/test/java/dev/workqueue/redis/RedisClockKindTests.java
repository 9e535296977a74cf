package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The handles of one queue must time leases and delays alike: a handle on the server's
 * clock would take at once the items a handle on a clock of its own holds, and the other
 * way round never. The queue keeps its kind with its data (its mark key, with the
 * format): a handle of the other kind is refused whether the first handles are live or
 * gone, and of two built at the same moment exactly one is built (R1). Another format, or
 * a live handle of the previous release of the other kind, is refused too.
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
		await().atMost(SOON).until(() -> handle(queue).reportsSharedGauges());
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

	/**
	 * A mark lost while the queue's handles live (evicted, or gone with a restart of a
	 * Redis that keeps nothing) is set again by the handle that reports: without it, a
	 * handle of the same kind built next would take the live reporter for one of the
	 * previous release and be refused.
	 */
	@Test
	void aMarkLostWhileItsHandlesLiveIsSetAgainAndTheSameKindStillJoins() throws Exception {
		live(this.redis.builder("q").clock(this.clock));
		String mark = this.redis.key("q", "mark");
		String kept = this.redis.redis().get(mark);
		this.redis.redis().del(mark);
		await().atMost(SOON).until(() -> {
			this.clock.step(Duration.ofSeconds(1));
			return kept.equals(this.redis.redis().get(mark));
		});
		assertThat(this.redis.track(this.redis.builder("q").clock(this.clock).buildDelayingQueue()).poll(Duration.ZERO))
			.as("a handle on the same kind of clock joins")
			.isNull();
	}

	/**
	 * Shuts a handle down and waits until it is gone: its timer ended, its role given up.
	 */
	private void gone(DelayingQueue<String> queue) {
		queue.shutDown();
		await().atMost(SOON).until(() -> RedisFixture.timer(handle(queue)).stopped());
		assertThat(this.redis.redis().exists(this.redis.key("q", "reporter"))).isZero();
	}

	@Test
	void aDelayOfAGivenClockIsNotHandedOutByAServerClockHandleThatJoinsAfterItsHandlesAreGone() throws Exception {
		DelayingQueue<String> given = live(this.redis.builder("q").clock(Clock.system()));
		given.addAfter("in an hour", Duration.ofHours(1));
		gone(given);
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").buildDelayingQueue())
			.withMessageContaining("Queue 'q'")
			.withMessageContaining("a clock given to its builder")
			.withMessageContaining("the Redis server's clock")
			.withMessageContaining(this.redis.key("q", "mark"));
		assertThat(this.redis.redis().zcard(this.redis.key("q", "waiting"))).as("still waiting").isOne();
	}

	@Test
	void aDelayOfTheServersClockIsNotStrandedByAGivenClockHandleThatJoinsAfterItsHandlesAreGone() throws Exception {
		DelayingQueue<String> server = live(this.redis.builder("q"));
		server.addAfter("in a second", Duration.ofSeconds(1));
		gone(server);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.redis.builder("q").clock(this.clock).buildDelayingQueue())
			.withMessageContaining("the Redis server's clock, and this one with a clock given to its builder");
		DelayingQueue<String> again = this.redis.track(this.redis.builder("q").buildDelayingQueue());
		await().atMost(SOON).until(() -> "in a second".equals(again.poll(Duration.ZERO)));
		again.done("in a second");
		assertThat(this.redis.redis().get(this.redis.key("q", "mark"))).as("kept when the queue is empty")
			.isEqualTo("2:S");
	}

	@Test
	void ofTwoHandlesOfDifferentKindsBuiltAtTheSameMomentExactlyOneIsBuilt() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 10; round++) {
				String name = "race-" + round;
				CyclicBarrier start = new CyclicBarrier(2);
				Future<DelayingQueue<String>> server = threads.submit(() -> {
					start.await();
					return this.redis.track(this.redis.builder(name).buildDelayingQueue());
				});
				Future<DelayingQueue<String>> given = threads.submit(() -> {
					start.await();
					return this.redis.track(this.redis.builder(name).clock(this.clock).buildDelayingQueue());
				});
				List<String> built = new ArrayList<>();
				List<Throwable> refused = new ArrayList<>();
				sort(server, "S", built, refused);
				sort(given, "C", built, refused);
				assertThat(built).as("round " + round).hasSize(1);
				assertThat(refused).singleElement()
					.isInstanceOf(IllegalStateException.class)
					.extracting(Throwable::getMessage)
					.asString()
					.contains("Queue '" + name + "'");
				assertThat(this.redis.redis().get(this.redis.key(name, "mark"))).isEqualTo("2:" + built.get(0));
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	private static void sort(Future<DelayingQueue<String>> build, String kind, List<String> built,
			List<Throwable> refused) throws InterruptedException {
		try {
			build.get();
			built.add(kind);
		}
		catch (ExecutionException ex) {
			refused.add(ex.getCause());
		}
	}

	@Test
	void anotherFormatIsRefusedNamingBoth() {
		this.redis.redis().set(this.redis.key("q", "mark"), "3:S");
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").buildDelayingQueue())
			.withMessageContaining("format 3")
			.withMessageContaining("format 2")
			.withMessageContaining("Upgrading");
	}

	@Test
	void aLiveHandleOfThePreviousReleaseDecidesTheKindOfAQueueWithoutAMark() {
		// The previous release kept no mark; its live handle holds the reporter role.
		this.redis.redis().psetex(this.redis.key("q", "reporter"), 30_000, "Spreviousrelease");
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").clock(this.clock).buildQueue())
			.withMessageContaining("the Redis server's clock, and this one with a clock given to its builder")
			.withMessageContaining("Upgrading");
		assertThat(this.redis.redis().get(this.redis.key("q", "mark"))).isNull();
		this.redis.track(this.redis.builder("q").buildDelayingQueue());
		assertThat(this.redis.redis().get(this.redis.key("q", "mark"))).as("its kind, kept from now on")
			.isEqualTo("2:S");
	}

	/**
	 * The previous release sent a given clock's readings as they are; this one anchors
	 * them on the server's time ({@link ClockAnchor}): the two may not share a queue.
	 */
	@Test
	void aLiveHandleOfThePreviousReleaseOnAGivenClockIsRefusedByBothKinds() {
		this.redis.redis().psetex(this.redis.key("q", "reporter"), 30_000, "Cpreviousrelease");
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").buildDelayingQueue())
			.withMessageContaining("a clock given to its builder, and this one with the Redis server's clock")
			.withMessageContaining("Upgrading");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.redis.builder("q").clock(this.clock).buildDelayingQueue())
			.withMessageContaining("a handle of the previous release is live on a clock given to its builder")
			.withMessageContaining("Cpreviousrelease")
			.withMessageContaining("anchors")
			.withMessageContaining("Upgrading");
		assertThat(this.redis.redis().get(this.redis.key("q", "mark"))).isNull();
	}

	@Test
	void aLiveHandleOfAReleaseBeforeKindsIsRefused() {
		this.redis.redis().psetex(this.redis.key("q", "reporter"), 30_000, "k3x9beforekinds");
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").buildDelayingQueue())
			.withMessageContaining("earlier release")
			.withMessageContaining("k3x9beforekinds")
			.withMessageContaining("Upgrading");
	}

	@Test
	void aHandleOnAClockOfItsOwnIsRefusedByAQueueWhoseHandlesUseTheServersClock() {
		live(this.redis.builder("q"));
		assertThatIllegalStateException().isThrownBy(() -> this.redis.builder("q").clock(this.clock).buildQueue())
			.withMessageContaining("the Redis server's clock, and this one with a clock given to its builder");
	}

}
