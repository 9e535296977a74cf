package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static dev.workqueue.WorkQueueTests.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The delaying queue's rules (client-go's {@code delaying_queue.go} plus our fine print),
 * checked on the delaying and the rate-limiting queue, with a {@link FakeClock}.
 */
class DelayingQueueTests {

	private final FakeClock clock = new FakeClock();

	private DelayingQueue<String> queue(QueueKind kind) {
		return (DelayingQueue<String>) kind.build(WorkQueues.<String>builder().clock(this.clock));
	}

	private static DelayingWorkQueue<?> engine(DelayingQueue<String> queue) {
		return QueueKind.engine(queue);
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void itemIsReadyWhenTheClockReachesItsDelayAndNotBefore(QueueKind kind) throws Exception {
		try (DelayingQueue<String> queue = queue(kind)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().waiting()).isOne();
			this.clock.step(Duration.ofMillis(999));
			assertThat(queue.size()).isZero();
			this.clock.step(Duration.ofMillis(1));
			assertThat(queue.size()).isEqualTo(1);
			assertThat(queue.stats().waiting()).isZero();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		}
	}

	static Stream<Duration> delaysThatMeanNow() {
		return Stream.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(-1),
				Duration.ofSeconds(Long.MIN_VALUE));
	}

	@ParameterizedTest
	@MethodSource("delaysThatMeanNow")
	void delayOfZeroOrLessAddsAtOnce(Duration delay) throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.add("first");
			queue.addAfter("a", delay);
			assertThat(queue.size()).isEqualTo(2);
			assertThat(drain(queue)).containsExactly("first", "a");
		}
	}

	static Stream<Arguments> twoDelaysOfOneItem() {
		return Stream.of(Arguments.of(Duration.ofSeconds(1), Duration.ofSeconds(2)),
				Arguments.of(Duration.ofSeconds(2), Duration.ofSeconds(1)));
	}

	@ParameterizedTest
	@MethodSource("twoDelaysOfOneItem")
	void addAfterOfAWaitingItemKeepsTheEarlierReadyTime(Duration first, Duration second) throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", first);
			queue.addAfter("a", second);
			assertThat(queue.stats().waiting()).as("held once").isOne();
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.size()).isEqualTo(1);
			assertThat(drain(queue)).containsExactly("a");
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.size()).as("the later time was dropped").isZero();
			assertThat(queue.stats().waiting()).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void waitingItemsComeOutInReadyTimeOrder(QueueKind kind) throws Exception {
		try (DelayingQueue<String> queue = queue(kind)) {
			queue.addAfter("c", Duration.ofMillis(30));
			queue.addAfter("a", Duration.ofMillis(10));
			queue.addAfter("d", Duration.ofMillis(40));
			queue.addAfter("b", Duration.ofMillis(20));
			this.clock.step(Duration.ofMillis(40));
			assertThat(queue.size()).isEqualTo(4);
			assertThat(drain(queue)).containsExactly("a", "b", "c", "d");
		}
	}

	@Test
	void itemsDueAtDifferentTimesComeOutInReadyTimeOrderEvenIfDueBeforeAnyoneLooked() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("warm-up", Duration.ofDays(1));
			for (int i = 9; i >= 1; i--) {
				queue.addAfter("item" + i, Duration.ofMillis(i));
			}
			this.clock.step(Duration.ofMillis(9));
			assertThat(queue.size()).isEqualTo(9);
			assertThat(drain(queue)).containsExactly("item1", "item2", "item3", "item4", "item5", "item6", "item7",
					"item8", "item9");
		}
	}

	@Test
	void addOfAWaitingItemQueuesItNowWithoutCancellingTheWait() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.add("a");
			assertThat(queue.size()).isOne();
			assertThat(drain(queue)).containsExactly("a");
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.size()).isEqualTo(1);
			assertThat(drain(queue)).as("comes again when due").containsExactly("a");
		}
	}

	@Test
	void itemThatFallsDueWhileQueuedIsHeldOnce() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.add("a");
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.stats().waiting()).isZero();
			assertThat(drain(queue)).containsExactly("a");
		}
	}

	@Test
	void itemThatFallsDueWhileProcessingIsRequeuedOnDone() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.addAfter("a", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.stats().waiting()).isZero();
			assertThat(queue.size()).as("not handed out while processing").isZero();
			queue.done("a");
			assertThat(drain(queue)).containsExactly("a");
		}
	}

	@Test
	void earlierItemIsReadyBeforeALaterOne() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("later", Duration.ofSeconds(5));
			queue.addAfter("sooner", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.size()).isEqualTo(1);
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("sooner");
		}
	}

	@Test
	void duplicateAddAftersShareTheItemsOneNode() {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofMinutes(1));
			for (int i = 0; i < 5000; i++) {
				queue.addAfter("a", Duration.ofMinutes(2));
			}
			assertThat(queue.stats().waiting()).isOne();
			assertThat(queue.stats().retries()).isEqualTo(5001);
			assertThat(engine(queue).trackedItems()).as("one node").isOne();
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void shutDownDropsWaitingItemsAndTheirNodes(QueueKind kind) throws Exception {
		DelayingQueue<String> queue = queue(kind);
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.addAfter("b", Duration.ofSeconds(2));
		queue.add("c");
		queue.addAfter("c", Duration.ofSeconds(1));
		queue.shutDown();
		assertThat(queue.stats().waiting()).isZero();
		this.clock.step(Duration.ofSeconds(2));
		assertThat(queue.size()).as("c was queued before the shutdown").isOne();
		assertThat(engine(queue).trackedItems()).as("c only").isOne();
		assertThat(drain(queue)).containsExactly("c");
		assertThat(queue.get()).isNull();
		assertThat(engine(queue).trackedItems()).isZero();
	}

	@Test
	void shutDownWithDrainDropsWaitingItemsToo() throws Exception {
		DelayingQueue<String> queue = queue(QueueKind.DELAYING);
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.add("b");
		assertThat(queue.get()).isEqualTo("b");
		queue.addAfter("b", Duration.ofSeconds(1));
		try (BlockingCall<Boolean> drain = BlockingCall.start(() -> {
			queue.shutDownWithDrain();
			return true;
		})) {
			drain.awaitBlocked();
			assertThat(queue.stats().waiting()).isZero();
			this.clock.step(Duration.ofSeconds(1));
			queue.done("b");
			assertThat(drain.result()).isTrue();
		}
		assertThat(queue.size()).isZero();
		assertThat(engine(queue).trackedItems()).isZero();
	}

	@Test
	void addAfterAfterShutDownIsIgnoredAndNotCountedAsARetry() {
		DelayingQueue<String> queue = queue(QueueKind.DELAYING);
		queue.shutDown();
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.addAfter("b", Duration.ZERO);
		assertThat(queue.size()).isZero();
		assertThat(queue.stats().retries()).isZero();
		assertThat(engine(queue).trackedItems()).isZero();
	}

	@Test
	void statsCountWaitingItemsAndEveryAddAfterAsARetry() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.addAfter("a", Duration.ofSeconds(2));
			queue.addAfter("b", Duration.ofSeconds(2));
			queue.addAfter("c", Duration.ZERO);
			WorkQueueStats stats = queue.stats();
			assertThat(stats.waiting()).isEqualTo(2);
			assertThat(stats.retries()).isEqualTo(4);
			assertThat(stats.depth()).isOne();
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.stats().waiting()).isOne();
			assertThat(queue.stats().depth()).isEqualTo(2);
		}
	}

	@Test
	void delaysRunNoThreadOfTheirOwn() throws Exception {
		Set<Thread> before = Thread.getAllStackTraces().keySet();
		try (DelayingQueue<String> queue = WorkQueues.<String>builder()
			.name("orders")
			.clock(this.clock)
			.buildDelayingQueue()) {
			queue.addAfter("a", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
			assertThat(Thread.getAllStackTraces().keySet()).filteredOn((thread) -> !before.contains(thread))
				.extracting(Thread::getName)
				.noneMatch((name) -> name.startsWith("workqueue"));
		}
	}

	@Test
	void consumerWaitingInGetIsWokenWhenTheClockReachesTheDelay() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING);
				BlockingCall<String> get = BlockingCall.start(queue::get)) {
			get.awaitBlocked();
			queue.addAfter("a", Duration.ofSeconds(1));
			Await.until(this.clock::hasWaiters);
			this.clock.step(Duration.ofMillis(999));
			assertThat(get.isDone()).isFalse();
			this.clock.step(Duration.ofMillis(1));
			assertThat(get.result()).isEqualTo("a");
			assertThat(queue.stats().waiting()).isZero();
		}
	}

	@Test
	void earlierItemWakesTheConsumerSleepingUntilALaterOne() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("later", Duration.ofSeconds(5));
			try (BlockingCall<String> get = BlockingCall.start(queue::get)) {
				Await.until(this.clock::hasWaiters);
				queue.addAfter("sooner", Duration.ofSeconds(1));
				this.clock.step(Duration.ofSeconds(1));
				assertThat(get.result()).isEqualTo("sooner");
			}
		}
	}

	/**
	 * The leader (the consumer that sleeps on the clock until the earliest ready time)
	 * stops waiting, here interrupted, while another consumer waits for an hour: that one
	 * must take the role on, or it sleeps past the item. Its wait ends without a step of
	 * the clock, which would wake every thread waiting on the queue's condition and hide
	 * a consumer left waiting; each step below comes once both threads are parked on the
	 * clock, so nothing depends on timing.
	 */
	@Test
	void aConsumerThatStopsWaitingHandsTheWaitOnToAnother() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofMillis(600));
			try (BlockingCall<String> leader = BlockingCall.start(queue::get)) {
				Await.atMost(Duration.ofSeconds(30)).until(() -> this.clock.numWaiters() == 1);
				try (BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofHours(1)))) {
					Await.atMost(Duration.ofSeconds(30)).until(() -> this.clock.numWaiters() == 2);
					leader.interrupt();
					Await.atMost(Duration.ofSeconds(30)).until(leader::isDone);
					assertThat(leader.failure()).isInstanceOf(InterruptedException.class);
					this.clock.step(Duration.ofMillis(600));
					Await.atMost(Duration.ofSeconds(30)).until(poll::isDone);
					assertThat(poll.result()).as("it waited for the item in the leader's place").isEqualTo("a");
				}
			}
		}
	}

	@Test
	void itemsDueTogetherReachEveryWaitingConsumer() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.addAfter("b", Duration.ofSeconds(1));
			queue.addAfter("c", Duration.ofSeconds(2));
			try (BlockingCall<String> first = BlockingCall.start(queue::get);
					BlockingCall<String> second = BlockingCall.start(queue::get);
					BlockingCall<String> third = BlockingCall.start(queue::get)) {
				Await.until(() -> first.isBlocked() && second.isBlocked() && third.isBlocked());
				this.clock.step(Duration.ofSeconds(1));
				Await.until(() -> Stream.of(first, second, third).filter(BlockingCall::isDone).count() == 2);
				this.clock.step(Duration.ofSeconds(1));
				assertThat(Set.of(first.result(), second.result(), third.result())).containsExactlyInAnyOrder("a", "b",
						"c");
			}
		}
	}

	@Test
	void anAddLinesUpBehindItemsAlreadyDue() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("due", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			queue.add("later");
			assertThat(drain(queue)).containsExactly("due", "later");
		}
	}

	@Test
	void addAfterEndsTheItemsDueWaitEvenBeyondTheBatchMovedFirst() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			for (int i = 0; i < DelayingWorkQueue.DUE_BATCH; i++) {
				queue.addAfter("early" + i, Duration.ofMillis(1));
			}
			queue.addAfter("x", Duration.ofMillis(2));
			this.clock.step(Duration.ofMillis(3));
			queue.addAfter("x", Duration.ofMillis(10));
			assertThat(queue.stats().waiting()).as("x waits again").isOne();
			assertThat(drain(queue)).hasSize(DelayingWorkQueue.DUE_BATCH + 1).endsWith("x");
			this.clock.step(Duration.ofMillis(10));
			assertThat(drain(queue)).containsExactly("x");
		}
	}

	@Test
	void itemDoneWhileItsDelayIsPendingWaitsAgainWithoutANewNode() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.done("a");
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().waiting()).isOne();
			assertThat(engine(queue).trackedItems()).isOne();
			queue.done("a");
			assertThat(queue.stats().waiting()).as("done of a waiting item is a no-op").isOne();
			this.clock.step(Duration.ofSeconds(1));
			assertThat(drain(queue)).containsExactly("a");
			assertThat(engine(queue).trackedItems()).isZero();
		}
	}

	@Test
	void theTableKeepsItsSizeWhileItemsWaitAndGrowsOnlyByDoubling() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			List<Integer> capacities = new ArrayList<>();
			for (int i = 0; i < 10_000; i++) {
				queue.addAfter("item" + i, Duration.ofMillis(1 + i));
				int capacity = engine(queue).tableCapacity();
				if (capacities.isEmpty() || capacities.get(capacities.size() - 1) != capacity) {
					capacities.add(capacity);
				}
			}
			for (int i = 1; i < capacities.size(); i++) {
				assertThat(capacities.get(i)).as("capacities %s", capacities).isEqualTo(2 * capacities.get(i - 1));
			}
			int highWater = engine(queue).tableCapacity();
			this.clock.step(Duration.ofMillis(9_999));
			assertThat(drain(queue)).hasSize(9_999);
			assertThat(queue.stats().waiting()).isOne();
			assertThat(engine(queue).tableCapacity()).as("one item waits").isEqualTo(highWater);
			this.clock.step(Duration.ofMillis(1));
			assertThat(drain(queue)).containsExactly("item9999");
			assertThat(engine(queue).tableCapacity()).as("given back once nothing waits").isLessThan(highWater);
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING", "PRIORITY" })
	void consumerWaitingForALateItemLooksAgainEachHeartbeat(QueueKind kind) throws Exception {
		AtomicInteger readings = new AtomicInteger();
		Clock countingClock = new Clock() {

			@Override
			public long nanoTime() {
				readings.incrementAndGet();
				return DelayingQueueTests.this.clock.nanoTime();
			}

			@Override
			public void awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException {
				DelayingQueueTests.this.clock.awaitUntil(lock, condition, deadlineNanos);
			}

		};
		try (DelayingQueue<String> queue = (DelayingQueue<String>) kind
			.build(WorkQueues.<String>builder().clock(countingClock).heartbeat(Duration.ofSeconds(3)))) {
			queue.addAfter("a", Duration.ofHours(1));
			try (BlockingCall<String> get = BlockingCall.start(queue::get)) {
				Await.until(this.clock::hasWaiters);
				int before = readings.get();
				this.clock.step(Duration.ofSeconds(3));
				Await.until(() -> readings.get() > before && this.clock.hasWaiters());
				assertThat(this.clock.numWaiters()).as("parked again").isOne();
				assertThat(get.isDone()).isFalse();
				assertThat(queue.stats().waiting()).isOne();
			}
		}
	}

	@Test
	void delayTooLargeForNanosecondsNeverOverflows() {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(Long.MAX_VALUE));
			this.clock.step(Duration.ofDays(365 * 200));
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().waiting()).isOne();
		}
	}

	@Test
	void itemArrivesAfterItsDelayOnTheSystemClock() throws Exception {
		try (DelayingQueue<String> queue = WorkQueues.<String>builder().buildDelayingQueue()) {
			queue.addAfter("a", Duration.ofMillis(20));
			assertThat(queue.poll(Duration.ofSeconds(1))).isEqualTo("a");
		}
	}

	@Test
	void manyWaitingItemsArriveEachOnce() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			for (int i = 0; i < 10_000; i++) {
				queue.addAfter("item" + (i % 2000), Duration.ofMillis(1 + (i * 7919L) % 1000));
			}
			this.clock.step(Duration.ofSeconds(1));
			assertThat(queue.size()).isEqualTo(2000);
			Set<String> items = drain(queue).stream().collect(Collectors.toSet());
			assertThat(items).hasSize(2000);
			assertThat(queue.stats().waiting()).isZero();
			assertThat(engine(queue).trackedItems()).isZero();
		}
	}

	@Test
	void nullIsRejectedNamingTheParameter() {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			assertThatNullPointerException().isThrownBy(() -> queue.addAfter(null, Duration.ZERO)).withMessage("item");
			assertThatNullPointerException().isThrownBy(() -> queue.addAfter("a", null)).withMessage("delay");
		}
	}

}
