package dev.workqueue.postgres;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.store.InspectionDriver;
import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link PostgresInspection}: the lists by state in their orders, one item in every
 * state, the given-up records within their bound, and the pause that every instance's
 * claims read, which a resume lifts at once.
 */
@RequiresPostgres
class PostgresInspectionTests {

	private final EngineFixture fixture = new EngineFixture();

	@AfterEach
	void dropTable() {
		this.fixture.close();
	}

	private static InspectionDriver inspection(WorkQueue<?> queue) {
		return EngineFixture.statements(queue).inspection();
	}

	private static List<String> texts(List<ItemView> views) {
		return views.stream().map(ItemView::text).toList();
	}

	@Test
	void namesTheBackendAndTheHolderOfTheHandlesLeases() throws Exception {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		InspectionDriver inspection = inspection(queue);
		assertThat(inspection.backend()).isEqualTo("postgres");
		assertThat(inspection.instance()).isEqualTo(TestSql
			.queryString("SELECT holder FROM " + this.fixture.table() + "_lease WHERE queue = 'q' AND item = 'a'"));
	}

	@Test
	void listsTheReadyItemsOfAPlainQueueInHandOutOrderWithTheirAttempts() {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		queue.add("c");
		queue.add("a");
		queue.add("b");
		queue.addAfter("later", Duration.ofHours(1));
		TestSql.update("INSERT INTO " + this.fixture.table() + "_limit (queue, kind, item, count, expires_at)"
				+ " VALUES ('q', 'failures:attempts', 'a', 2, now() + interval '1 hour')");
		InspectionDriver inspection = inspection(queue);
		List<ItemView> ready = inspection.items(ItemState.READY, 0, 10);
		assertThat(texts(ready)).containsExactly("c", "a", "b");
		assertThat(ready).extracting(ItemView::attempts).containsExactly(0, 2, 0);
		assertThat(ready).allSatisfy((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.READY);
			assertThat(view.holder()).isNull();
			assertThat(view.leaseLeft()).isNull();
			assertThat(view.at()).isBefore(Instant.now().plusSeconds(5));
		});
		assertThat(texts(inspection.items(ItemState.READY, 1, 1))).containsExactly("a");
		assertThat(inspection.items(ItemState.READY, 3, 10)).isEmpty();
	}

	@Test
	void listsTheReadyItemsOfAPriorityQueueHighestFirst() {
		PriorityQueue<String> queue = this.fixture
			.track(this.fixture.builder("p").buildPriorityQueue(RateLimiters.defaultControllerRateLimiter()));
		queue.add("low", 1);
		queue.add("high", 5);
		queue.add("high2", 5);
		queue.add("none", 0);
		List<ItemView> ready = inspection(queue).items(ItemState.READY, 0, 10);
		assertThat(texts(ready)).containsExactly("high", "high2", "low", "none");
		assertThat(ready).extracting(ItemView::priority).containsExactly(5, 5, 1, 0);
	}

	@Test
	void listsTheWaitingItemsSoonestFirstAndTheyBecomeReadyOnTheQueuesClock() {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").clock(clock).buildDelayingQueue());
		queue.addAfter("third", Duration.ofMinutes(3));
		queue.addAfter("first", Duration.ofMinutes(1));
		queue.addAfter("second", Duration.ofMinutes(2));
		queue.add("now");
		InspectionDriver inspection = inspection(queue);
		List<ItemView> waiting = inspection.items(ItemState.WAITING, 0, 10);
		assertThat(texts(waiting)).containsExactly("first", "second", "third");
		assertThat(Duration.between(waiting.get(0).at(), waiting.get(1).at())).isEqualTo(Duration.ofMinutes(1));
		assertThat(texts(inspection.items(ItemState.READY, 0, 10))).containsExactly("now");
		clock.step(Duration.ofSeconds(90));
		assertThat(texts(inspection.items(ItemState.WAITING, 0, 10))).containsExactly("second", "third");
		assertThat(texts(inspection.items(ItemState.READY, 0, 10))).containsExactly("now", "first");
	}

	@Test
	void listsTheProcessingItemsByHandOutWithHolderAndLease() throws Exception {
		DelayingQueue<String> one = this.fixture
			.track(this.fixture.builder("q").lease(Duration.ofMinutes(5)).buildDelayingQueue());
		DelayingQueue<String> two = this.fixture
			.track(this.fixture.builder("q").lease(Duration.ofMinutes(5)).buildDelayingQueue());
		one.add("a");
		one.add("b");
		one.add("c");
		assertThat(two.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(one.poll(Duration.ZERO)).isEqualTo("b");
		List<ItemView> processing = inspection(one).items(ItemState.PROCESSING, 0, 10);
		assertThat(texts(processing)).containsExactly("a", "b");
		assertThat(processing).extracting(ItemView::holder)
			.containsExactly(inspection(two).instance(), inspection(one).instance());
		assertThat(processing).allSatisfy((view) -> {
			assertThat(view.state()).isEqualTo(ItemState.PROCESSING);
			assertThat(view.leaseLeft()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(5));
			assertThat(view.ahead()).isFalse();
		});
		assertThat(texts(inspection(two).items(ItemState.PROCESSING, 1, 10))).containsExactly("b");
		assertThat(texts(inspection(two).items(ItemState.READY, 0, 10))).containsExactly("c");
	}

	@Test
	void aLeaseRunOutAndNotSweptYetShowsNoneLeft() throws Exception {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(clock).lease(Duration.ofMinutes(5)).buildDelayingQueue());
		queue.add("a");
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		// Run out on the queue's clock, which stands: the keeper's next sweep never
		// comes.
		TestSql
			.update("UPDATE " + this.fixture.table() + "_lease SET lease_until = lease_until - interval '10 minutes'");
		InspectionDriver inspection = inspection(queue);
		assertThat(inspection.items(ItemState.PROCESSING, 0, 10)).singleElement()
			.satisfies((view) -> assertThat(view.leaseLeft()).isEqualTo(Duration.ZERO));
		assertThat(inspection.find("a")).singleElement()
			.satisfies((view) -> assertThat(view.leaseLeft()).isEqualTo(Duration.ZERO));
	}

	@Test
	void aProcessingItemShowsWhenItWasHandedOutAndARenewalLeavesIt() throws Exception {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(clock).lease(Duration.ofSeconds(3)).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		queue.add("a");
		Instant ready = inspection.items(ItemState.READY, 0, 10).get(0).at();
		clock.step(Duration.ofMinutes(1));
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		Instant handedOut = inspection.items(ItemState.PROCESSING, 0, 10).get(0).at();
		// From after the claim's wait, as its lease: within a second of the clock's time.
		assertThat(handedOut).isBetween(ready.plus(Duration.ofMinutes(1)),
				ready.plus(Duration.ofMinutes(1)).plusSeconds(1));
		assertThat(inspection.find("a").get(0).at()).isEqualTo(handedOut);
		Long leaseUntil = TestSql.leaseUntilMicros(this.fixture.table(), "a");
		clock.step(Duration.ofSeconds(2));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> TestSql.leaseUntilMicros(this.fixture.table(), "a") > leaseUntil);
		assertThat(inspection.items(ItemState.PROCESSING, 0, 10).get(0).at()).as("renewed").isEqualTo(handedOut);
		assertThat(inspection.find("a").get(0).at()).isEqualTo(handedOut);
	}

	@Test
	void findsAnItemInEveryStateItIsIn() throws Exception {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").clock(clock).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		assertThat(inspection.find("a")).isEmpty();
		queue.add("a");
		inspection.keepGivenUp("a", 4, "boom");
		assertThat(inspection.find("a")).extracting(ItemView::state)
			.containsExactly(ItemState.READY, ItemState.GIVEN_UP);
		assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		List<ItemView> found = inspection.find("a");
		assertThat(found).extracting(ItemView::state).containsExactly(ItemState.PROCESSING, ItemState.GIVEN_UP);
		assertThat(found.get(0).holder()).isEqualTo(inspection.instance());
		assertThat(found.get(0).leaseLeft()).isPositive();
		assertThat(found.get(1).attempts()).isEqualTo(4);
		assertThat(found.get(1).reason()).isEqualTo("boom");
		assertThat(found.get(1).holder()).isEqualTo(inspection.instance());
		queue.add("a");
		assertThat(inspection.find("a")).as("added again while processing: not ready before its done")
			.extracting(ItemView::state)
			.containsExactly(ItemState.PROCESSING, ItemState.GIVEN_UP);
		assertThat(texts(inspection.items(ItemState.READY, 0, 10))).isEmpty();
		queue.addAfter("w", Duration.ofMinutes(1));
		assertThat(inspection.find("w")).extracting(ItemView::state).containsExactly(ItemState.WAITING);
		assertThat(inspection.find("w").get(0).reason()).isNull();
	}

	@Test
	void keepsTheNewestRecordsUpToTheBoundAndReplacesAnItemsRecord() {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(clock).givenUp(3, Duration.ofDays(1)).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		for (String item : List.of("a", "b", "c", "d", "e")) {
			inspection.keepGivenUp(item, 1, "failed " + item);
			clock.step(Duration.ofSeconds(1));
		}
		assertThat(inspection.givenUpCount()).isEqualTo(3);
		assertThat(texts(inspection.items(ItemState.GIVEN_UP, 0, 10))).containsExactly("e", "d", "c");
		assertThat(givenUpRows()).as("trimmed, not only hidden").isEqualTo(3);
		inspection.keepGivenUp("c", 7, "again");
		List<ItemView> kept = inspection.items(ItemState.GIVEN_UP, 0, 10);
		assertThat(texts(kept)).containsExactly("c", "e", "d");
		assertThat(kept.get(0).attempts()).isEqualTo(7);
		assertThat(kept.get(0).reason()).isEqualTo("again");
		assertThat(kept.get(0).state()).isEqualTo(ItemState.GIVEN_UP);
		assertThat(texts(inspection.items(ItemState.GIVEN_UP, 1, 1))).containsExactly("e");
	}

	@Test
	void recordsPastTheirRetentionAreNotCountedAndTheNextKeepDeletesThem() {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(clock).givenUp(100, Duration.ofMinutes(1)).buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		inspection.keepGivenUp("old", 1, "x");
		clock.step(Duration.ofSeconds(59));
		inspection.keepGivenUp("young", 1, "x");
		assertThat(inspection.givenUpCount()).isEqualTo(2);
		clock.step(Duration.ofSeconds(2));
		assertThat(inspection.givenUpCount()).isOne();
		assertThat(texts(inspection.items(ItemState.GIVEN_UP, 0, 10))).containsExactly("young");
		assertThat(inspection.find("old")).isEmpty();
		assertThat(inspection.deleteGivenUp("old", null)).as("past its retention: not kept").isFalse();
		inspection.keepGivenUp("new", 1, "x");
		assertThat(givenUpRows()).isEqualTo(2);
	}

	/**
	 * A queue that no longer gives up keeps no record past its retention for good: each
	 * handle that keeps records deletes them, about once a minute, also beside one that
	 * keeps none.
	 */
	@Test
	void recordsPastTheirRetentionAreDeletedWithoutAnotherGiveUp() {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> keepsNone = this.fixture
			.track(this.fixture.builder("q").clock(clock).givenUp(0, Duration.ofSeconds(1)).buildDelayingQueue());
		inspection(keepsNone).keepGivenUp("a", 1, "x");
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").clock(clock).givenUp(100, Duration.ofMinutes(1)).buildDelayingQueue());
		inspection(queue).keepGivenUp("old", 1, "x");
		clock.step(Duration.ofSeconds(30));
		inspection(queue).keepGivenUp("young", 1, "x");
		clock.step(Duration.ofSeconds(40));
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(
					TestSql.queryString("SELECT string_agg(item, ',') FROM " + this.fixture.table() + "_given_up"))
				.isEqualTo("young"));
		assertThat(inspection(queue).givenUpCount()).isOne();
	}

	@Test
	void aBoundOfNoneKeepsNothing() {
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").givenUp(0, Duration.ofDays(1)).buildDelayingQueue());
		inspection(queue).keepGivenUp("a", 1, "x");
		assertThat(inspection(queue).givenUpCount()).isZero();
		assertThat(givenUpRows()).isZero();
	}

	@Test
	void aBoundOfNoneOnOneInstanceLeavesTheRecordsOthersKeep() {
		DelayingQueue<String> keeping = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		DelayingQueue<String> none = this.fixture
			.track(this.fixture.builder("q").givenUp(0, Duration.ofDays(1)).buildDelayingQueue());
		inspection(keeping).keepGivenUp("a", 1, "x");
		inspection(none).keepGivenUp("b", 1, "x");
		inspection(none).keepGivenUp("a", 2, "y");
		assertThat(texts(inspection(keeping).items(ItemState.GIVEN_UP, 0, 10))).containsExactly("a");
		assertThat(inspection(keeping).find("a").get(0).reason()).isEqualTo("x");
	}

	@Test
	void textNoItemCanHoldIsFoundNowhereAndHasNoRecordToDelete() {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		// Adds refuse a NUL, which PostgreSQL cannot store: asking for one is no failure.
		assertThat(inspection.find("a\0b")).isEmpty();
		assertThat(inspection.deleteGivenUp("a\0b", null)).isFalse();
	}

	@Test
	void aReasonHoldingANulIsKeptWithTheCharacterReplaced() {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		inspection.keepGivenUp("a", 3, "boom\0 in a binary body");
		assertThat(inspection.givenUpCount()).isOne();
		assertThat(inspection.find("a").get(0).reason()).isEqualTo("boom\uFFFD in a binary body");
	}

	@Test
	void deletesARecord() {
		DelayingQueue<String> queue = this.fixture.track(this.fixture.builder("q").buildDelayingQueue());
		InspectionDriver inspection = inspection(queue);
		inspection.keepGivenUp("a", 1, "x");
		assertThat(inspection.deleteGivenUp("a", null)).isTrue();
		assertThat(inspection.deleteGivenUp("a", null)).isFalse();
		assertThat(inspection.givenUpCount()).isZero();
	}

	@Test
	void theRecordsOfAQueueAreItsOwn() {
		DelayingQueue<String> one = this.fixture
			.track(this.fixture.builder("one").givenUp(1, Duration.ofDays(1)).buildDelayingQueue());
		DelayingQueue<String> two = this.fixture.track(this.fixture.builder("two").buildDelayingQueue());
		inspection(two).keepGivenUp("b", 1, "x");
		inspection(one).keepGivenUp("a", 1, "x");
		inspection(one).keepGivenUp("c", 1, "x");
		assertThat(inspection(two).givenUpCount()).isOne();
		assertThat(texts(inspection(one).items(ItemState.GIVEN_UP, 0, 10))).containsExactly("c");
	}

	private long givenUpRows() {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_given_up");
	}

	@Test
	void aPauseStopsTheClaimsOfEveryHandleAndAResumeWakesTheirWaitingConsumersAtOnce() throws Exception {
		// Listening handles that would look on their own only after a minute.
		PostgresFixture table = this.fixture.tableFixture();
		DelayingQueue<String> pausing = this.fixture
			.track(table.builder("q").pollInterval(Duration.ofMinutes(1)).buildDelayingQueue());
		DelayingQueue<String> other = this.fixture
			.track(table.builder("q").pollInterval(Duration.ofMinutes(1)).buildDelayingQueue());
		inspection(pausing).pause(true);
		assertThat(inspection(other).paused()).isTrue();
		pausing.add("a");
		assertThat(other.poll(Duration.ZERO)).isNull();
		assertThat(pausing.poll(Duration.ZERO)).isNull();
		CompletableFuture<String> taken = CompletableFuture.supplyAsync(() -> {
			try {
				return other.poll(Duration.ofMinutes(2));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> EngineFixture.statements(other).waitingConsumers() == 1);
		inspection(pausing).pause(false);
		assertThat(taken.get(10, TimeUnit.SECONDS)).isEqualTo("a");
		assertThat(inspection(other).paused()).isFalse();
		other.done("a");
	}

	@Test
	void aPauseOfAQueueLeavesTheOthersOfItsTable() throws Exception {
		DelayingQueue<String> paused = this.fixture.track(this.fixture.builder("paused").buildDelayingQueue());
		DelayingQueue<String> running = this.fixture.track(this.fixture.builder("running").buildDelayingQueue());
		inspection(paused).pause(true);
		inspection(paused).pause(true);
		running.add("a");
		assertThat(inspection(running).paused()).isFalse();
		assertThat(running.poll(Duration.ZERO)).isEqualTo("a");
		running.done("a");
	}

	@Test
	void aPauseAndAResumeAreCommittedOutsideTheCallersTransaction() throws Exception {
		try (CallerTransaction transaction = new CallerTransaction()) {
			DelayingQueue<String> queue = this.fixture
				.track(this.fixture.builder("tx", transaction.dataSource()).buildDelayingQueue());
			queue.add("a");
			inspection(queue).pause(true);
			assertThat(pausedRows()).as("seen outside the transaction before its end").isOne();
			assertThat(TestSql.count(this.fixture.table())).as("the caller's add not committed by the pause").isZero();
			transaction.rollback();
			assertThat(pausedRows()).as("kept by the rollback").isOne();
			inspection(queue).pause(true);
			assertThat(TestSql.count(this.fixture.table())).as("nor by a pause after the rollback").isZero();
			inspection(queue).pause(false);
			assertThat(pausedRows()).isZero();
		}
	}

	private long pausedRows() {
		return TestSql.queryLong("SELECT count(*) FROM " + this.fixture.table() + "_limit WHERE kind = 'paused'");
	}

	@Test
	void aResumeWakesTheConsumersOfAHandleThatDoesNotListen() throws Exception {
		DelayingQueue<String> queue = this.fixture
			.track(this.fixture.builder("q").pollInterval(Duration.ofMinutes(1)).buildDelayingQueue());
		inspection(queue).pause(true);
		queue.add("a");
		CompletableFuture<String> taken = CompletableFuture.supplyAsync(() -> {
			try {
				return queue.poll(Duration.ofMinutes(2));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> EngineFixture.statements(queue).waitingConsumers() == 1);
		inspection(queue).pause(false);
		assertThat(taken.get(10, TimeUnit.SECONDS)).isEqualTo("a");
		queue.done("a");
	}

}
