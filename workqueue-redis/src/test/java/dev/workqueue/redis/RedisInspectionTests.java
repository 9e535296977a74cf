package dev.workqueue.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.spi.SharedWorkQueue;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.store.SharedStoreQueue;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The Redis driver's side of an operator's look into a queue ({@link RedisInspection}):
 * items by state in their order and pages, one item in every state it is in, the given-up
 * records and their bound, and the pause that every instance's claims read.
 */
@RequiresRedis
class RedisInspectionTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final RedisFixture redis = new RedisFixture();

	private final FakeClock clock = new FakeClock();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@AfterEach
	void close() throws Exception {
		this.executor.shutdownNow();
		this.redis.close();
	}

	private DelayingQueue<String> queue(String name) {
		return this.redis.track(this.redis.builder(name).clock(this.clock).lease(LEASE).buildDelayingQueue());
	}

	private PriorityQueue<String> priorityQueue(String name) {
		return this.redis.track(this.redis.builder(name)
			.clock(this.clock)
			.lease(LEASE)
			.buildPriorityQueue(new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1))));
	}

	private static InspectionDriver inspection(WorkQueue<?> queue) {
		return ((SharedStoreQueue<?, ?>) queue.capability(SharedWorkQueue.class).orElseThrow()).driver().inspection();
	}

	/** The scripts' time now, as a wall-clock instant. */
	private Instant now() {
		long micros = this.redis.scriptMicros(this.clock);
		return Instant.EPOCH.plusNanos(micros * 1000);
	}

	private static List<String> texts(List<ItemView> views) {
		return views.stream().map(ItemView::text).toList();
	}

	@Test
	void theBackendIsRedisAndTheInstanceIsTheHolderItsLeasesName() throws Exception {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(inspection.backend()).isEqualTo("redis");
		assertThat(this.redis.redis().hget(this.redis.key("q", "leases"), "a")).startsWith(inspection.instance() + ":");
		assertThat(inspection.instance()).isNotEqualTo(inspection(queue("q")).instance());
	}

	@Test
	void readyItemsOfAPlainQueueComeInHandOutOrderAndPages() throws Exception {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		Instant first = now();
		for (String item : List.of("a", "b", "c", "d")) {
			queue.add(item);
			this.clock.step(Duration.ofSeconds(1));
		}
		assertThat(texts(inspection.items(ItemState.READY, 0, 10))).containsExactly("a", "b", "c", "d");
		List<ItemView> page = inspection.items(ItemState.READY, 1, 2);
		assertThat(texts(page)).containsExactly("b", "c");
		assertThat(page.get(0)).satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.READY);
			assertThat(view.at()).isEqualTo(first.plusSeconds(1));
			assertThat(view.priority()).isZero();
			assertThat(view.holder()).isNull();
			assertThat(view.leaseLeft()).isNull();
			assertThat(view.ahead()).isFalse();
			assertThat(view.attempts()).isZero();
			assertThat(view.reason()).isNull();
		});
		assertThat(inspection.items(ItemState.READY, 4, 10)).isEmpty();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(texts(inspection.items(ItemState.READY, 0, 10))).containsExactly("b", "c", "d");
	}

	@Test
	void readyItemsOfAPriorityQueueComeByPriorityThenReadyOrder() throws Exception {
		PriorityQueue<String> queue = priorityQueue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("low", -1);
		queue.add("first-5", 5);
		queue.add("zero", 0);
		queue.add("second-5", 5);
		List<ItemView> ready = inspection.items(ItemState.READY, 0, 10);
		assertThat(texts(ready)).containsExactly("first-5", "second-5", "zero", "low");
		assertThat(ready).extracting(ItemView::priority).containsExactly(5, 5, 0, -1);
		assertThat(texts(inspection.items(ItemState.READY, 1, 2))).containsExactly("second-5", "zero");
		assertThat(queue.pollWithPriority(Duration.ZERO).item()).isEqualTo(ready.get(0).text());
	}

	@Test
	void processingItemsTellTheirHolderLeaseAndAttempts() throws Exception {
		RedisWorkQueues.Builder<String> builder = this.redis.builder("q").clock(this.clock).lease(LEASE);
		DelayingQueue<String> queue = this.redis.track(builder.buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		builder.rateLimiters().attempts().countFailure("b");
		queue.add("a");
		queue.add("b");
		Instant handedOut = now();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		this.clock.step(Duration.ofSeconds(1));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("b");
		this.clock.step(Duration.ofSeconds(4));
		List<ItemView> processing = inspection.items(ItemState.PROCESSING, 0, 10);
		assertThat(texts(processing)).containsExactly("a", "b");
		assertThat(processing.get(0)).satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.PROCESSING);
			assertThat(view.holder()).isEqualTo(inspection.instance());
			assertThat(view.at()).isEqualTo(handedOut);
			assertThat(view.leaseLeft()).isEqualTo(LEASE.minusSeconds(5));
			assertThat(view.ahead()).isFalse();
			assertThat(view.attempts()).isZero();
		});
		assertThat(processing.get(1).leaseLeft()).isEqualTo(LEASE.minusSeconds(4));
		assertThat(processing.get(1).attempts()).as("the shared count of max-retries").isOne();
		assertThat(texts(inspection.items(ItemState.PROCESSING, 1, 5))).containsExactly("b");
	}

	@Test
	void aProcessingItemIsHeldSinceItsHandOutAndARenewalLeavesThat() throws Exception {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("a");
		Instant handedOut = now();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		Double expiry = this.redis.redis().zscore(this.redis.key("q", "processing"), "a");
		// The handle renews every third of the lease: step past one and wait for it.
		this.clock.step(LEASE.dividedBy(3).plusSeconds(1));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !expiry.equals(this.redis.redis().zscore(this.redis.key("q", "processing"), "a")));
		assertThat(inspection.items(ItemState.PROCESSING, 0, 10)).singleElement()
			.satisfies((view) -> assertThat(view.at()).isEqualTo(handedOut));
		assertThat(inspection.find("a")).singleElement()
			.satisfies((view) -> assertThat(view.at()).isEqualTo(handedOut));
		queue.done("a");
	}

	@Test
	void aLeaseOfThePreviousReleaseIsHeldSinceItsLastStartAndEndsByItsToken() throws Exception {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("a");
		Instant handedOut = now();
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		// The previous release keeps the token alone, without the grant's time.
		String leases = this.redis.key("q", "leases");
		String value = this.redis.redis().hget(leases, "a");
		assertThat(value).contains(".@");
		this.redis.redis().hset(leases, "a", value.substring(0, value.indexOf(".@")));
		assertThat(inspection.items(ItemState.PROCESSING, 0, 10)).singleElement()
			.satisfies((view) -> assertThat(view.at()).isEqualTo(handedOut));
		assertThat(inspection.find("a")).singleElement()
			.satisfies((view) -> assertThat(view.at()).isEqualTo(handedOut));
		queue.done("a");
		assertThat(this.redis.redis().exists(leases)).isZero();
	}

	@Test
	void aLeaseOfThePreviousReleaseIsRenewedByItsToken() throws Exception {
		DelayingQueue<String> queue = queue("q");
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		String leases = this.redis.key("q", "leases");
		String token = previousReleaseLease(leases, "a");
		Double expiry = this.redis.redis().zscore(this.redis.key("q", "processing"), "a");
		// The handle renews every third of the lease: step past one and wait for it.
		this.clock.step(LEASE.dividedBy(3).plusSeconds(1));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !expiry.equals(this.redis.redis().zscore(this.redis.key("q", "processing"), "a")));
		assertThat(this.redis.redis().hget(leases, "a")).as("a renewal keeps the value").isEqualTo(token);
		queue.done("a");
	}

	@Test
	void theTickForgetsTheGrantOfAnExpiredLeaseOfThePreviousRelease() throws Exception {
		DelayingQueue<String> queue = queue("q");
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		String grants = this.redis.key("q", "grants");
		assertThat(this.redis.redis().hkeys(grants)).as("the get's grant").hasSize(1);
		previousReleaseLease(this.redis.key("q", "leases"), "a");
		// Expired, without stepping the clock (which would renew it first).
		this.redis.redis().zadd(this.redis.key("q", "processing"), 0, "a");
		RedisFixture.timer((SharedStoreQueue<?, ?>) queue.capability(SharedWorkQueue.class).orElseThrow()).wake();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.redis().exists(grants) == 0);
		assertThat(this.redis.redis().exists(this.redis.key("q", "leases"))).as("the lease ended with it").isZero();
		queue.done("a");
	}

	/**
	 * Makes an item's lease one the previous release granted: its token alone.
	 * @return the token
	 */
	private String previousReleaseLease(String leases, String item) {
		String value = this.redis.redis().hget(leases, item);
		assertThat(value).contains(".@");
		String token = value.substring(0, value.indexOf(".@"));
		this.redis.redis().hset(leases, item, token);
		return token;
	}

	@Test
	void processingItemsOfAPriorityQueueKeepThePriorityTheyWereHandedOutWith() throws Exception {
		PriorityQueue<String> queue = priorityQueue("q");
		queue.add("a", 7);
		assertThat(queue.pollWithPriority(Duration.ZERO).priority()).isEqualTo(7);
		assertThat(inspection(queue).items(ItemState.PROCESSING, 0, 10)).singleElement()
			.extracting(ItemView::priority)
			.isEqualTo(7);
	}

	@Test
	void waitingItemsComeByDueTimeWithTheirDueTime() {
		PriorityQueue<String> queue = priorityQueue("q");
		InspectionDriver inspection = inspection(queue);
		Instant now = now();
		queue.addAfter("later", Duration.ofSeconds(30), 2);
		queue.addAfter("soon", Duration.ofSeconds(10), 4);
		queue.addAfter("middle", Duration.ofSeconds(20));
		List<ItemView> waiting = inspection.items(ItemState.WAITING, 0, 10);
		assertThat(texts(waiting)).containsExactly("soon", "middle", "later");
		assertThat(waiting).extracting(ItemView::at)
			.containsExactly(now.plusSeconds(10), now.plusSeconds(20), now.plusSeconds(30));
		assertThat(waiting).extracting(ItemView::priority).containsExactly(4, 0, 2);
		assertThat(texts(inspection.items(ItemState.WAITING, 2, 10))).containsExactly("later");
	}

	@Test
	void givenUpItemsComeNewestFirstAndAnItemGivenUpAgainReplacesItsRecord() {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		Instant first = now();
		for (String item : List.of("a", "b", "c")) {
			inspection.keepGivenUp(item, 3, "failed " + item);
			this.clock.step(Duration.ofSeconds(1));
		}
		List<ItemView> givenUp = inspection.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(texts(givenUp)).containsExactly("c", "b", "a");
		assertThat(givenUp.get(2)).satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.GIVEN_UP);
			assertThat(view.at()).isEqualTo(first);
			assertThat(view.attempts()).isEqualTo(3);
			assertThat(view.reason()).isEqualTo("failed a");
			assertThat(view.holder()).isEqualTo(inspection.instance());
			assertThat(view.leaseLeft()).isNull();
		});
		inspection.keepGivenUp("a", 5, "line one\nline two");
		assertThat(inspection.givenUpCount()).isEqualTo(3);
		givenUp = inspection.items(ItemState.GIVEN_UP, 0, 2);
		assertThat(texts(givenUp)).containsExactly("a", "c");
		assertThat(givenUp.get(0).attempts()).isEqualTo(5);
		assertThat(givenUp.get(0).reason()).isEqualTo("line one\nline two");
		assertThat(givenUp.get(0).at()).isEqualTo(first.plusSeconds(3));
	}

	@Test
	void theGivenUpRecordsKeepTheNewestOnesUpToTheBound() {
		DelayingQueue<String> queue = this.redis
			.track(this.redis.builder("q").clock(this.clock).givenUp(2, Duration.ofDays(1)).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		for (String item : List.of("a", "b", "c", "d")) {
			inspection.keepGivenUp(item, 1, "failed");
			this.clock.step(Duration.ofMillis(1));
		}
		assertThat(inspection.givenUpCount()).isEqualTo(2);
		assertThat(texts(inspection.items(ItemState.GIVEN_UP, 0, 10))).containsExactly("d", "c");
		assertThat(this.redis.redis().hkeys(this.redis.key("q", "given-up"))).containsExactlyInAnyOrder("c", "d");
		assertThat(this.redis.redis().pttl(this.redis.key("q", "given-up-at"))).isBetween(1L,
				Duration.ofDays(1).toMillis());
	}

	@Test
	void givenUpRecordsPastTheirRetentionOnTheStoresClockAreNeitherCountedNorListedAndAreSwept() {
		DelayingQueue<String> queue = this.redis
			.track(this.redis.builder("q").clock(this.clock).givenUp(10, Duration.ofHours(1)).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		inspection.keepGivenUp("old", 1, "failed");
		this.clock.step(Duration.ofMinutes(40));
		inspection.keepGivenUp("newer", 1, "failed");
		this.clock.step(Duration.ofMinutes(20));
		assertThat(inspection.givenUpCount()).isOne();
		assertThat(texts(inspection.items(ItemState.GIVEN_UP, 0, 10))).containsExactly("newer");
		assertThat(inspection.find("old")).isEmpty();
		assertThat(this.redis.redis().hkeys(this.redis.key("q", "given-up"))).as("not swept until a write")
			.containsExactlyInAnyOrder("old", "newer");
		inspection.keepGivenUp("newest", 1, "failed");
		assertThat(this.redis.redis().hkeys(this.redis.key("q", "given-up"))).containsExactlyInAnyOrder("newer",
				"newest");
		assertThat(this.redis.redis().zrange(this.redis.key("q", "given-up-at"), 0, -1))
			.containsExactlyInAnyOrder("newer", "newest");
	}

	@Test
	void storedRecordsOfAnyShapeReadAsWholeViewsAndLeaveTheOthersAligned() {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		for (String item : List.of("a", "b", "c")) {
			inspection.keepGivenUp(item, 2, "failed " + item);
			this.clock.step(Duration.ofSeconds(1));
		}
		// As a record may be stored: negative attempts, or no record's shape at all.
		this.redis.redis().hset(this.redis.key("q", "given-up"), "b", "-1 old\nnegative");
		this.redis.redis().hset(this.redis.key("q", "given-up"), "c", "garbage");
		List<ItemView> givenUp = inspection.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(texts(givenUp)).containsExactly("c", "b", "a");
		assertThat(givenUp).extracting(ItemView::attempts).containsExactly(0, -1, 2);
		assertThat(givenUp).extracting(ItemView::holder).containsExactly(null, "old", inspection.instance());
		assertThat(givenUp).extracting(ItemView::reason).containsExactly("garbage", "negative", "failed a");
		assertThat(inspection.find("b")).singleElement().extracting(ItemView::attempts).isEqualTo(-1);
		assertThat(inspection.find("c")).singleElement().extracting(ItemView::reason).isEqualTo("garbage");
	}

	@Test
	void aStoredNegativeAttemptCountReadsAsAWholeView() {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("a");
		queue.add("b");
		this.redis.redis().hset(this.redis.key("q", "failures:attempts"), "a", "-3");
		assertThat(inspection.items(ItemState.READY, 0, 10)).extracting(ItemView::text, ItemView::attempts)
			.containsExactly(tuple("a", -1), tuple("b", 0));
		assertThat(inspection.find("a")).singleElement().extracting(ItemView::attempts).isEqualTo(-1);
	}

	@Test
	void oneGiveUpTrimsAtMostOneSweepOfRecordsOverTheBoundAndLaterOnesConverge() {
		QueueKeys keys = QueueKeys.of(this.redis.prefix, "q");
		String sweep = "local GIVEN_UP_SWEEP = 1000\n";
		assertThat(LuaScript.KEEP_GIVEN_UP.source()).contains(sweep);
		String capped = LuaScript.KEEP_GIVEN_UP.source().replace(sweep, "local GIVEN_UP_SWEEP = 2\n");
		long now = 1_000_000;
		String hour = Long.toString(Duration.ofHours(1).toNanos() / 1000);
		for (String item : List.of("a", "b", "c", "d", "e", "f")) {
			this.redis.redis()
				.eval(capped, LuaScript.KEEP_GIVEN_UP.output(), keys.all(), Long.toString(now++), keys.channel(), item,
						"1", "failed", "h", "10", hour);
		}
		List<Long> left = new ArrayList<>();
		for (String item : List.of("g", "h", "i", "j", "k", "l")) {
			this.redis.redis()
				.eval(capped, LuaScript.KEEP_GIVEN_UP.output(), keys.all(), Long.toString(now++), keys.channel(), item,
						"1", "failed", "h", "1", hour);
			left.add(this.redis.redis().zcard(keys.givenUpAt()));
		}
		assertThat(left).containsExactly(5L, 4L, 3L, 2L, 1L, 1L);
		assertThat(this.redis.redis().hkeys(keys.givenUp())).containsExactly("l");
		assertThat(this.redis.redis().zrange(keys.givenUpAt(), 0, -1)).containsExactly("l");
	}

	@Test
	void aGivenUpRecordIsDeletedOnce() {
		InspectionDriver inspection = inspection(queue("q"));
		inspection.keepGivenUp("a", 2, "failed");
		assertThat(inspection.deleteGivenUp("a", null)).isTrue();
		assertThat(inspection.deleteGivenUp("a", null)).isFalse();
		assertThat(inspection.givenUpCount()).isZero();
		assertThat(this.redis.redis().exists(this.redis.key("q", "given-up"), this.redis.key("q", "given-up-at")))
			.isZero();
	}

	@Test
	void aQueueThatKeepsNoGivenUpRecordsWritesNone() {
		InspectionDriver inspection = inspection(this.redis
			.track(this.redis.builder("q").clock(this.clock).givenUp(0, Duration.ofDays(1)).buildQueue()));
		inspection.keepGivenUp("a", 2, "failed");
		assertThat(inspection.givenUpCount()).isZero();
		assertThat(this.redis.redis().exists(this.redis.key("q", "given-up"))).isZero();
	}

	@Test
	void findTellsEveryStateAnItemIsInProcessingFirst() throws Exception {
		DelayingQueue<String> queue = queue("q");
		InspectionDriver inspection = inspection(queue);
		assertThat(inspection.find("a")).isEmpty();
		queue.add("a");
		assertThat(inspection.find("a")).extracting(ItemView::state).containsExactly(ItemState.READY);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.add("a");
		assertThat(inspection.find("a")).as("added again while processing: queued at its done, not ready")
			.extracting(ItemView::state)
			.containsExactly(ItemState.PROCESSING);
		queue.addAfter("a", Duration.ofMinutes(1));
		inspection.keepGivenUp("a", 4, "failed");
		List<ItemView> found = inspection.find("a");
		assertThat(found).extracting(ItemView::state)
			.containsExactly(ItemState.PROCESSING, ItemState.WAITING, ItemState.GIVEN_UP);
		assertThat(found.get(0).holder()).isEqualTo(inspection.instance());
		assertThat(found.get(0).leaseLeft()).isEqualTo(LEASE);
		assertThat(found.get(1).at()).isEqualTo(now().plusSeconds(60));
		assertThat(found.get(2).attempts()).isEqualTo(4);
		assertThat(found.get(2).reason()).isEqualTo("failed");
		queue.done("a");
		assertThat(inspection.find("a")).extracting(ItemView::state)
			.containsExactly(ItemState.READY, ItemState.WAITING, ItemState.GIVEN_UP);
	}

	@Test
	void findTellsAPriorityQueuesReadyItemWithItsPriority() {
		PriorityQueue<String> queue = priorityQueue("q");
		queue.add("a", 3);
		queue.add("b", 1);
		queue.add("b", 6);
		assertThat(inspection(queue).find("b")).singleElement().satisfies((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.READY);
			assertThat(view.priority()).isEqualTo(6);
		});
	}

	@Test
	void aPausedQueueHandsOutNothingOnAnyInstanceUntilResumedAndTheResumeWakesTheWaitingConsumers() throws Exception {
		// On the server's clock, with a heartbeat far off: only the resume's wake-up can
		// hand the item to the waiting consumer in time.
		DelayingQueue<String> pausing = this.redis
			.track(this.redis.builder("q").heartbeat(Duration.ofMinutes(5)).buildDelayingQueue());
		DelayingQueue<String> other = this.redis
			.track(this.redis.builder("q").heartbeat(Duration.ofMinutes(5)).buildDelayingQueue());
		InspectionDriver inspection = inspection(pausing);
		inspection.pause(true);
		assertThat(inspection.paused()).isTrue();
		assertThat(inspection(other).paused()).isTrue();
		other.add("x");
		assertThat(other.poll(Duration.ZERO)).isNull();
		assertThat(pausing.poll(Duration.ZERO)).isNull();
		Thread[] consumer = new Thread[1];
		Future<String> taken = this.executor.submit(() -> {
			consumer[0] = Thread.currentThread();
			return other.poll(Duration.ofMinutes(1));
		});
		await().atMost(Duration.ofSeconds(10))
			.until(() -> consumer[0] != null && consumer[0].getState() == Thread.State.TIMED_WAITING);
		assertThat(taken).isNotDone();
		assertThat(inspection.items(ItemState.READY, 0, 10)).extracting(ItemView::text).containsExactly("x");

		inspection.pause(false);

		assertThat(taken).succeedsWithin(Duration.ofSeconds(2)).isEqualTo("x");
		assertThat(inspection(other).paused()).isFalse();
		assertThat(this.redis.redis().exists(this.redis.key("q", "paused"))).isZero();
		other.done("x");
	}

	@Test
	void aPausedPriorityQueueHandsOutNothingUntilResumed() throws Exception {
		PriorityQueue<String> queue = priorityQueue("q");
		InspectionDriver inspection = inspection(queue);
		queue.add("a", 1);
		inspection.pause(true);
		assertThat(queue.poll(Duration.ZERO)).isNull();
		assertThat(inspection.paused()).isTrue();
		inspection.pause(false);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		queue.done("a");
	}

	@Test
	void theNewKeysShareTheQueuesHashTag() {
		QueueKeys keys = QueueKeys.of("p:", "orders");
		assertThat(Stream.of(keys.givenUp(), keys.givenUpAt(), keys.paused(), keys.attempts(), keys.dead()))
			.containsExactly("p:{orders}:given-up", "p:{orders}:given-up-at", "p:{orders}:paused",
					"p:{orders}:failures:attempts", "p:{orders}:dead");
		assertThat(Stream.of(keys.all()).map(SlotHash::getSlot).distinct()).containsExactly(SlotHash.getSlot("orders"));
	}

}
