package dev.workqueue.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.SharedPoller;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.DelayingQueue;
import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.Pollers;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * client-go's rules across two handles ("instances") on one Redis queue, leases and
 * fencing, delays on a shared {@link FakeClock}, and the failures a user can meet.
 */
@RequiresRedis
class RedisWorkQueueTests {

	/** Integers as their decimal text: any other payload cannot be read. */
	private static final ItemCodec<Integer> NUMBERS = new ItemCodec<>() {

		@Override
		public String encode(Integer item) {
			return item.toString();
		}

		@Override
		public Integer decode(String encoded) {
			return Integer.valueOf(encoded);
		}

	};

	private static final Duration SOON = Duration.ofSeconds(2);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	@AfterEach
	void close() throws Exception {
		this.redis.close();
	}

	/**
	 * The next item of a queue on the fake clock, once its thread has moved it: its
	 * {@code poll} timeouts run on that clock, which only the test moves.
	 */
	private static String next(WorkQueue<String> queue) {
		AtomicReference<String> item = new AtomicReference<>();
		await().atMost(SOON).until(() -> {
			item.set(queue.poll(Duration.ZERO));
			return item.get() != null;
		});
		return item.get();
	}

	private DelayingQueue<String> instance(String name) {
		return this.redis.track(this.redis.builder(name).clock(this.clock).buildDelayingQueue());
	}

	@Test
	void anInterruptedPollThrowsAndLosesNothing() throws Exception {
		DelayingQueue<String> a = instance("q");
		a.add("x");
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> a.poll(Duration.ZERO));
		}
		finally {
			Thread.interrupted();
		}
		// Its lease script may have run: then the item is handed back, not leased to
		// nobody.
		assertThat(next(a)).isEqualTo("x");
		a.done("x");
		assertThat(a.stats().processing()).isZero();
		assertThat(this.redis.redis().hlen(this.redis.key("q", "leases"))).isZero();
	}

	@Test
	void anInterruptDoesNotCutAnAddShortAndIsKept() {
		DelayingQueue<String> a = instance("q");
		Thread.currentThread().interrupt();
		try {
			a.add("x");
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt status is set again").isTrue();
		}
		assertThat(a.size()).isOne();
	}

	/** A blocking call on a thread of its own (the common pool may have one thread). */
	private static <R> CompletableFuture<R> async(Callable<R> call) {
		CompletableFuture<R> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(call.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		thread.setDaemon(true);
		thread.start();
		return result;
	}

	@Test
	void aPollersWakeUpEndsItsWaitingPollOnlyWithoutAnInterrupt() throws Exception {
		DelayingQueue<String> queue = this.redis.track(this.redis.builder("q").buildDelayingQueue());
		Poller<String> woken = Pollers.of(queue);
		Poller<String> other = Pollers.of(queue);
		assertThat(woken).as("the queue's own poller").isInstanceOf(SharedPoller.class);
		CompletableFuture<Prioritized<String>> wokenPoll = async(() -> woken.poll(Duration.ofMinutes(5)));
		CompletableFuture<Prioritized<String>> otherPoll = async(() -> other.poll(Duration.ofMinutes(5)));
		CompletableFuture<String> plainPoll = async(() -> queue.poll(Duration.ofMinutes(5)));
		await().during(Duration.ofMillis(100)).atMost(SOON).until(() -> !wokenPoll.isDone());
		woken.wakeup();
		assertThat(wokenPoll.get(5, TimeUnit.SECONDS)).isNull();
		await("the other poller and the plain poll wait on").during(Duration.ofMillis(100))
			.atMost(SOON)
			.until(() -> !otherPoll.isDone() && !plainPoll.isDone());
		queue.addAll(List.of("x", "y"));
		List<String> taken = new ArrayList<>();
		taken.add(otherPoll.get(5, TimeUnit.SECONDS).item());
		taken.add(plainPoll.get(5, TimeUnit.SECONDS));
		assertThat(taken).containsExactlyInAnyOrder("x", "y");
		queue.done("x");
		queue.done("y");
	}

	@Test
	void aWakeUpBeforeAPollEndsThatPollOnlyAndLeavesTheItemsQueued() throws Exception {
		RateLimitingQueue<String> queue = this.redis.track(this.redis.builder("q")
			.buildRateLimitingQueue(
					new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
		Poller<String> poller = Pollers.of(queue);
		assertThat(poller).as("the handle's own, behind the rate-limiting wrapper").isInstanceOf(SharedPoller.class);
		queue.add("x");
		poller.wakeup();
		poller.wakeup();
		assertThat(poller.poll(Duration.ofMinutes(5))).as("sticky: the next poll ends at once").isNull();
		assertThat(queue.size()).isOne();
		assertThat(poller.poll(Duration.ZERO)).as("several wake-ups end one poll").isEqualTo(new Prioritized<>("x", 0));
		poller.wakeup();
		assertThat(poller.doneAndPoll("x", Duration.ofMinutes(5))).isNull();
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"))).as("x is done all the same").isZero();
		assertThat(queue.capability(SharedQueue.class).orElseThrow().held()).isZero();
		assertThat(queue.size()).isZero();
	}

	@Test
	void addAfterKeepsTheEarlierReadyTimeAndNothingIsReadyEarly() throws Exception {
		DelayingQueue<String> a = instance("q");
		DelayingQueue<String> b = instance("q");
		a.addAfter("x", Duration.ofSeconds(10));
		b.addAfter("x", Duration.ofSeconds(3));
		a.addAfter("x", Duration.ofSeconds(5));
		assertThat(a.stats().waiting()).isOne();
		this.clock.step(Duration.ofMillis(2999));
		assertThat(b.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofMillis(1));
		await().atMost(SOON).until(() -> a.size() == 1);
		assertThat(b.poll(Duration.ZERO)).isEqualTo("x");
		b.done("x");
		this.clock.step(Duration.ofSeconds(10));
		assertThat(a.stats().waiting()).as("the later waits were folded in").isZero();
		assertThat(a.poll(Duration.ZERO)).isNull();
	}

	@Test
	void aBlockedGetWakesWhenAnotherInstanceAdds() throws Exception {
		DelayingQueue<String> a = instance("q");
		DelayingQueue<String> b = instance("q");
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<String> got = executor.submit(() -> b.get());
			a.add("x");
			assertThat(got.get(2, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("x");
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void anExpiredLeaseReturnsTheItemAndTheFormerHoldersDoneIsFencedOff() throws Exception {
		// The holder's clock never moves: it never renews, as a frozen or cut-off JVM.
		// Each clock is anchored on the server's time when its first handle is built, and
		// a
		// FakeClock does not follow real time: the holder's, anchored after the other's,
		// stands a few real milliseconds ahead of it, so its lease runs out a little
		// after
		// a second on the other's clock, never before.
		FakeClock frozen = new FakeClock();
		DelayingQueue<String> other = this.redis
			.track(this.redis.builder("q").clock(this.clock).lease(Duration.ofSeconds(1)).buildDelayingQueue());
		DelayingQueue<String> holder = this.redis
			.track(this.redis.builder("q").clock(frozen).lease(Duration.ofSeconds(1)).buildDelayingQueue());
		holder.add("x");
		assertThat(holder.poll(Duration.ZERO)).isEqualTo("x");
		this.clock.step(Duration.ofMillis(999));
		assertThat(other.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofSeconds(1));
		await().atMost(SOON).until(() -> ((SharedQueue) other).stalled() == 1);
		assertThat(other.poll(Duration.ZERO)).isEqualTo("x");
		holder.done("x");
		assertThat(other.stats().processing()).as("the late done did not end the new lease").isOne();
		other.done("x");
		assertThat(other.stats().processing()).isZero();
	}

	@Test
	void theHolderRenewsItsLeaseForAsLongAsItHoldsTheItem() throws Exception {
		DelayingQueue<String> holder = this.redis
			.track(this.redis.builder("q").clock(this.clock).lease(Duration.ofSeconds(3)).buildDelayingQueue());
		DelayingQueue<String> other = this.redis
			.track(this.redis.builder("q").clock(this.clock).lease(Duration.ofSeconds(3)).buildDelayingQueue());
		holder.add("x");
		assertThat(holder.poll(Duration.ZERO)).isEqualTo("x");
		String processing = this.redis.key("q", "processing");
		for (int i = 1; i <= 10; i++) {
			this.clock.step(Duration.ofSeconds(1));
			long nowMicros = this.redis.scriptMicros(this.clock);
			// Renewed every third of the lease: the expiry keeps ahead of the clock.
			await().atMost(SOON).until(() -> this.redis.redis().zscore(processing, "x") > nowMicros + 1_000_000);
		}
		assertThat(other.poll(Duration.ZERO)).isNull();
		assertThat(((SharedQueue) other).stalled()).isZero();
		holder.done("x");
	}

	@Test
	void aPayloadTheCodecCannotReadIsGivenUpWithItsReasonAndTheQueueGoesOn() throws Exception {
		RedisClient client = this.redis.client;
		WorkQueue<Integer> queue = this.redis.track(RedisWorkQueues.builder(client, NUMBERS)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.buildQueue());
		instance("q").add("not a number");
		queue.add(42);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo(42);
		assertThat(((SharedQueue) queue).deadLettered()).isOne();
		queue.done(42);
		InspectionDriver inspection = ((SharedStoreQueue<?, ?>) queue).driver().inspection();
		assertThat(inspection.items(ItemState.GIVEN_UP, 0, 10)).singleElement().satisfies((view) -> {
			assertThat(view.text()).isEqualTo("not a number");
			assertThat(view.attempts()).isZero();
			assertThat(view.holder()).isEqualTo(inspection.instance());
			assertThat(view.reason()).contains("NumberFormatException");
		});
		assertThat(inspection.items(ItemState.PROCESSING, 0, 10)).isEmpty();
		assertThat(this.redis.redis().exists(this.redis.key("q", "dead"))).as("the old list is not written").isZero();
	}

	@Test
	void theGivenUpPayloadsKeepTheNewestRecordsAndExpire() throws Exception {
		WorkQueue<Integer> queue = this.redis.track(RedisWorkQueues.builder(this.redis.client, NUMBERS)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.givenUp(3, Duration.ofHours(1))
			.buildQueue());
		DelayingQueue<String> adder = instance("q");
		for (int i = 0; i < 5; i++) {
			adder.add("bad-" + i);
		}
		queue.add(42);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo(42);
		assertThat(((SharedQueue) queue).deadLettered()).isEqualTo(5);
		InspectionDriver inspection = ((SharedStoreQueue<?, ?>) queue).driver().inspection();
		assertThat(inspection.items(ItemState.GIVEN_UP, 0, 10)).extracting(ItemView::text)
			.containsExactlyInAnyOrder("bad-2", "bad-3", "bad-4");
		for (String part : List.of("given-up", "given-up-at")) {
			assertThat(this.redis.redis().pttl(this.redis.key("q", part))).isBetween(1L,
					Duration.ofHours(1).toMillis());
		}
	}

	@Test
	void aQueueThatKeepsNoGivenUpRecordsStillTakesTheUndecodablePayloadOut() throws Exception {
		WorkQueue<Integer> queue = this.redis.track(RedisWorkQueues.builder(this.redis.client, NUMBERS)
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.givenUp(0, Duration.ofHours(1))
			.buildQueue());
		instance("q").add("bad");
		queue.add(42);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo(42);
		assertThat(((SharedQueue) queue).deadLettered()).isOne();
		queue.done(42);
		assertThat(((SharedStoreQueue<?, ?>) queue).driver().inspection().givenUpCount()).isZero();
		assertThat(this.redis.redis()
			.exists(this.redis.key("q", "given-up"), this.redis.key("q", "given-up-at"),
					this.redis.key("q", "processing")))
			.isZero();
	}

	@Test
	void anUnreachableServerGivesAClearErrorNamingTheQueueAndTheServer() throws Exception {
		int port = RedisServers.freePort();
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
		try {
			DelayingQueue<String> queue = RedisWorkQueues.builder(client, ItemCodec.strings())
				.name("orders")
				.commandTimeout(Duration.ofSeconds(1))
				.buildDelayingQueue();
			assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.add("x"))
				.withMessageContaining("Queue 'orders'")
				.withMessageContaining("127.0.0.1")
				.withMessageContaining(":" + port);
			queue.shutDown();
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void aKeyOfAnotherTypeUnderThePrefixFailsTheBuildNamingIt() {
		String queueKey = this.redis.key("q", "queue");
		this.redis.redis().set(queueKey, "someone else's");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> instance("q"))
			.withMessageContaining(queueKey)
			.withMessageContaining("holds a string, not the list")
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(RedisQueueException.Reason.WRONG_TYPE));
	}

	@Test
	void aKeyTurnedIntoAnotherTypeLaterFailsEachScriptBeforeItWritesAnything() {
		DelayingQueue<String> queue = instance("q");
		String queueKey = this.redis.key("q", "queue");
		this.redis.redis().set(queueKey, "someone else's");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.add("x"))
			.withMessageContaining(queueKey)
			.withMessageContaining("holds a string, not the list")
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(RedisQueueException.Reason.WRONG_TYPE));
		assertThat(this.redis.redis().exists(this.redis.key("q", "dirty"))).as("not marked dirty").isZero();
		this.redis.redis().del(queueKey);
		queue.add("x");
		assertThat(queue.size()).as("the add that failed left nothing to make this one a no-op").isOne();
	}

	@Test
	void getAndDoneFailBeforeTheyWriteWhenAKeyTheyWriteHoldsAnotherType() throws Exception {
		DelayingQueue<String> queue = instance("q");
		queue.add("x");
		String processing = this.redis.key("q", "processing");
		this.redis.redis().set(processing, "someone else's");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.poll(Duration.ZERO))
			.withMessageContaining(processing);
		assertThat(this.redis.redis().lrange(this.redis.key("q", "queue"), 0, -1)).as("x is still queued")
			.containsExactly("x");
		this.redis.redis().del(processing);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		String dirty = this.redis.key("q", "dirty");
		this.redis.redis().set(dirty, "someone else's");
		assertThatExceptionOfType(RedisQueueException.class).isThrownBy(() -> queue.done("x"))
			.withMessageContaining(dirty);
		assertThat(this.redis.redis().hlen(this.redis.key("q", "leases"))).as("the lease is still there").isOne();
		this.redis.redis().del(dirty);
	}

	@Test
	void badOptionsAreRefusedNamingThem() {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("q");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.lease(Duration.ofMillis(999)))
			.withMessageContaining("lease");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.heartbeat(Duration.ofMillis(1)))
			.withMessageContaining("heartbeat");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.commandTimeout(Duration.ZERO))
			.withMessageContaining("commandTimeout");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.name("a{b}")).withMessageContaining("name");
		// A lone surrogate, which the connection writes as '?': "a?"'s keys.
		assertThatIllegalArgumentException().isThrownBy(() -> builder.name("a\uD800")).withMessageContaining("name");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.keyPrefix("app\uDC00:"))
			.withMessageContaining("prefix");
	}

	@Test
	void aThrowingMetricsHookCostsNothingButTheCall() throws Exception {
		WorkQueueMetrics throwing = new WorkQueueMetrics() {

			@Override
			public void added() {
				throw new IllegalStateException("hook");
			}

			@Override
			public void handedOut(long queuedNanos) {
				throw new IllegalStateException("hook");
			}

		};
		DelayingQueue<String> queue = this.redis
			.track(this.redis.builder("q").clock(this.clock).metrics(throwing).buildDelayingQueue());
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		queue.done("x");
		assertThat(queue.stats().processing()).isZero();
	}

	@ParameterizedTest(name = "recordsDurations={0}")
	@ValueSource(booleans = { true, false })
	void durationsReachTheHookOnlyWhenItRecordsThem(boolean recordsDurations) throws Exception {
		List<String> calls = new CopyOnWriteArrayList<>();
		WorkQueueMetrics metrics = new WorkQueueMetrics() {

			@Override
			public boolean recordsDurations() {
				return recordsDurations;
			}

			@Override
			public void added() {
				calls.add("added");
			}

			@Override
			public void handedOut(long queuedNanos) {
				calls.add("handedOut");
			}

			@Override
			public void done(long workNanos) {
				calls.add("done");
			}

			@Override
			public void retried() {
				calls.add("retried");
			}

		};
		DelayingQueue<String> queue = this.redis
			.track(this.redis.builder("q").clock(this.clock).metrics(metrics).buildDelayingQueue());
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		this.clock.step(Duration.ofSeconds(3));
		assertThat(queue.stats().longestRunningProcessorNanos()).as("measured all the same")
			.isEqualTo(Duration.ofSeconds(3).toNanos());
		queue.addAfter("y", Duration.ofSeconds(1));
		queue.done("x");
		assertThat(calls).containsExactlyElementsOf(
				recordsDurations ? List.of("added", "handedOut", "retried", "done") : List.of("added", "retried"));
	}

	@Test
	void rateLimitedAddsShareTheFailureHistoryOfEveryInstance() throws Exception {
		RateLimiter<String> limiterA = RedisRateLimiters.builder(this.redis.client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.exponential(Duration.ofSeconds(1), Duration.ofSeconds(100));
		RateLimiter<String> limiterB = RedisRateLimiters.builder(this.redis.client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.exponential(Duration.ofSeconds(1), Duration.ofSeconds(100));
		RateLimitingQueue<String> a = this.redis
			.track(this.redis.builder("q").clock(this.clock).buildRateLimitingQueue(limiterA));
		RateLimitingQueue<String> b = this.redis
			.track(this.redis.builder("q").clock(this.clock).buildRateLimitingQueue(limiterB));
		a.addRateLimited("x");
		assertThat(b.numRequeues("x")).isOne();
		this.clock.step(Duration.ofSeconds(1));
		assertThat(next(b)).isEqualTo("x");
		b.addRateLimited("x");
		b.done("x");
		this.clock.step(Duration.ofMillis(1999));
		assertThat(a.stats().waiting()).as("second failure waits 2 s").isOne();
		assertThat(a.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofMillis(1));
		assertThat(next(a)).isEqualTo("x");
		a.forget("x");
		assertThat(b.numRequeues("x")).isZero();
		a.done("x");
	}

	@Test
	void aQueuesBuilderHandsOutItsLimitersOnItsClientWithItsCodecNamePrefixAndClock() throws Exception {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("q").clock(this.clock);
		RedisRateLimiters.Builder<String> limiters = builder.rateLimiters();
		builder.name("other");
		RateLimiter<String> bucket = limiters.bucket(1, 1);
		assertThat(bucket.when("a")).isZero();
		assertThat(bucket.when("b")).isEqualTo(Duration.ofSeconds(1));
		this.clock.step(Duration.ofSeconds(2));
		assertThat(bucket.when("c")).as("refilled on the queue's clock").isZero();
		assertThat(this.redis.redis().exists(this.redis.key("q", "bucket")))
			.as("under the name and prefix set when handed out")
			.isOne();
		RateLimiter<String> exponential = limiters.exponential(Duration.ofSeconds(1), Duration.ofSeconds(100));
		assertThat(exponential.when("x")).isEqualTo(Duration.ofSeconds(1));
		RateLimitingQueue<String> queue = this.redis.track(this.redis.builder("q")
			.clock(this.clock)
			.buildRateLimitingQueue(this.redis.builder("q")
				.clock(this.clock)
				.rateLimiters()
				.exponential(Duration.ofSeconds(1), Duration.ofSeconds(100))));
		assertThat(queue.numRequeues("x")).as("one failure history").isOne();
		queue.forget("x");
		assertThat(exponential.when("x")).isEqualTo(Duration.ofSeconds(1));
		exponential.forget("x");
	}

	@Test
	void theBuildersTakeAnyLettuceClientOfAKindTheyKnow() throws Exception {
		AbstractRedisClient client = this.redis.client;
		DelayingQueue<String> queue = this.redis.track(RedisWorkQueues.builder(client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.buildDelayingQueue());
		queue.add("x");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("x");
		queue.done("x");
		assertThat(RedisRateLimiters.builder(client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.exponential(Duration.ofSeconds(1), Duration.ofSeconds(2))
			.when("x")).isEqualTo(Duration.ofSeconds(1));
		ClientResources resources = ClientResources.create();
		try {
			AbstractRedisClient other = new AbstractRedisClient(resources) {
			};
			assertThatIllegalArgumentException().isThrownBy(() -> RedisWorkQueues.builder(other, ItemCodec.strings()))
				.withMessageContaining("RedisClient or a RedisClusterClient");
			assertThatIllegalArgumentException().isThrownBy(() -> RedisRateLimiters.builder(other, ItemCodec.strings()))
				.withMessageContaining("RedisClient or a RedisClusterClient");
		}
		finally {
			resources.shutdown();
		}
	}

	@Test
	void jitterCutsEachSharedDelayByAtMostItsFraction() {
		RateLimiter<String> limiter = RedisRateLimiters.builder(this.redis.client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock)
			.exponential(Duration.ofSeconds(1), Duration.ofSeconds(100), 0.5);
		for (long exact = 1; exact <= 8; exact *= 2) {
			assertThat(limiter.when("x")).isBetween(Duration.ofMillis(500 * exact), Duration.ofSeconds(exact));
		}
		assertThat(limiter.numRequeues("x")).isEqualTo(4);
		limiter.forget("x");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisRateLimiters.builder(this.redis.client, ItemCodec.strings())
				.name("q")
				.exponential(Duration.ZERO, Duration.ZERO, -0.5))
			.withMessageContaining("jitter");
	}

	@Test
	void instancesShareOneTokenBucket() {
		RedisRateLimiters.Builder<String> builder = RedisRateLimiters.builder(this.redis.client, ItemCodec.strings())
			.keyPrefix(this.redis.prefix)
			.name("q")
			.clock(this.clock);
		RateLimiter<String> a = builder.bucket(10, 2);
		RateLimiter<String> b = builder.bucket(10, 2);
		assertThat(a.when("1")).isZero();
		assertThat(b.when("2")).isZero();
		assertThat(a.when("3")).isEqualTo(Duration.ofMillis(100));
		assertThat(b.when("4")).isEqualTo(Duration.ofMillis(200));
		this.clock.step(Duration.ofSeconds(1));
		assertThat(a.when("5")).isZero();
		RateLimiter<String> perItem = builder.itemBucket(1, 1);
		assertThat(perItem.when("x")).isZero();
		assertThat(perItem.when("x")).isEqualTo(Duration.ofSeconds(1));
		assertThat(perItem.when("y")).isZero();
		perItem.forget("x");
		assertThat(perItem.when("x")).as("a fresh bucket").isZero();
	}

	@Test
	void manyConsumersOnTwoInstancesNeverShareAnItemAndLoseNothing() throws Exception {
		DelayingQueue<String> a = this.redis.track(this.redis.builder("stress").buildDelayingQueue());
		DelayingQueue<String> b = this.redis.track(this.redis.builder("stress").buildDelayingQueue());
		int items = 400;
		Set<String> inHand = ConcurrentHashMap.newKeySet();
		Set<String> processed = ConcurrentHashMap.newKeySet();
		AtomicReference<String> violation = new AtomicReference<>();
		AtomicInteger adds = new AtomicInteger();
		List<Thread> consumers = new CopyOnWriteArrayList<>();
		for (DelayingQueue<String> queue : List.of(a, b)) {
			for (int c = 0; c < 3; c++) {
				Thread consumer = new Thread(() -> {
					try {
						String item;
						while ((item = queue.get()) != null) {
							if (!inHand.add(item)) {
								violation.compareAndSet(null, item + " held twice");
							}
							processed.add(item);
							// Re-added while in hand: must come back later, never now.
							if (adds.incrementAndGet() % 5 == 0) {
								queue.add(item);
							}
							inHand.remove(item);
							queue.done(item);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				consumer.start();
				consumers.add(consumer);
			}
		}
		for (int i = 0; i < items; i++) {
			((i % 2 == 0) ? a : b).add("item-" + i);
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> processed.size() == items && a.stats().depth() == 0 && a.stats().processing() == 0
					&& ((SharedQueue) a).pending() == 0);
		a.shutDown();
		b.shutDown();
		for (Thread consumer : consumers) {
			consumer.join(5000);
		}
		assertThat(violation.get()).isNull();
		assertThat(processed).hasSize(items);
	}

}
