package dev.workqueue;

import java.time.Duration;
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

	/** Waits until the owner thread has released what was due and waits. */
	private static void awaitOwnerIdle(DelayingQueue<String> queue) {
		Await.until(QueueKind.delaying(queue)::isIdle);
	}

	private static void awaitSize(DelayingQueue<String> queue, int size) {
		Await.until(() -> queue.size() == size);
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void itemIsReadyWhenTheClockReachesItsDelayAndNotBefore(QueueKind kind) throws Exception {
		try (DelayingQueue<String> queue = queue(kind)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			awaitOwnerIdle(queue);
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().waiting()).isOne();
			this.clock.step(Duration.ofMillis(999));
			awaitOwnerIdle(queue);
			assertThat(queue.size()).isZero();
			this.clock.step(Duration.ofMillis(1));
			awaitSize(queue, 1);
			Await.until(() -> queue.stats().waiting() == 0);
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
			assertThat(QueueKind.delaying(queue).ownerThread()).as("no thread needed").isNull();
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
			awaitOwnerIdle(queue);
			assertThat(queue.stats().waiting()).as("held once").isOne();
			this.clock.step(Duration.ofSeconds(1));
			awaitSize(queue, 1);
			assertThat(drain(queue)).containsExactly("a");
			this.clock.step(Duration.ofSeconds(1));
			awaitOwnerIdle(queue);
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
			awaitOwnerIdle(queue);
			this.clock.step(Duration.ofMillis(40));
			awaitSize(queue, 4);
			assertThat(drain(queue)).containsExactly("a", "b", "c", "d");
		}
	}

	@Test
	void itemsDueAtDifferentTimesComeOutInReadyTimeOrderEvenIfDueBeforeTheOwnerSawThem() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("warm-up", Duration.ofDays(1));
			awaitOwnerIdle(queue);
			for (int i = 9; i >= 1; i--) {
				queue.addAfter("item" + i, Duration.ofMillis(i));
			}
			this.clock.step(Duration.ofMillis(9));
			awaitSize(queue, 9);
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
			awaitSize(queue, 1);
			assertThat(drain(queue)).as("comes again when due").containsExactly("a");
		}
	}

	@Test
	void itemThatFallsDueWhileQueuedIsHeldOnce() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.add("a");
			this.clock.step(Duration.ofSeconds(1));
			Await.until(() -> queue.stats().waiting() == 0);
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
			Await.until(() -> queue.stats().waiting() == 0);
			assertThat(queue.size()).as("not handed out while processing").isZero();
			queue.done("a");
			assertThat(drain(queue)).containsExactly("a");
		}
	}

	@Test
	void earlierItemWakesTheOwnerSleepingUntilALaterOne() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("later", Duration.ofSeconds(5));
			awaitOwnerIdle(queue);
			queue.addAfter("sooner", Duration.ofSeconds(1));
			this.clock.step(Duration.ofSeconds(1));
			awaitSize(queue, 1);
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("sooner");
		}
	}

	@Test
	void duplicatesHandedOffWhileTheOwnerSleepsAreFoldedPromptly() {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofMinutes(1));
			awaitOwnerIdle(queue);
			for (int i = 0; i < 5000; i++) {
				queue.addAfter("a", Duration.ofMinutes(2));
			}
			// No entry is earlier than what the owner waits for, yet it takes them all
			// now rather than at its next wake-up (its heartbeat, 10 s away).
			awaitOwnerIdle(queue);
			assertThat(queue.stats().waiting()).isOne();
			assertThat(queue.stats().retries()).isEqualTo(5001);
			assertThat(QueueKind.delaying(queue).heldEntries()).as("heap and index").isEqualTo(2);
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING" })
	void shutDownDropsWaitingItemsAndStopsTheOwnerThread(QueueKind kind) throws Exception {
		DelayingQueue<String> queue = queue(kind);
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.addAfter("b", Duration.ofSeconds(2));
		Thread owner = QueueKind.delaying(queue).ownerThread();
		queue.shutDown();
		assertThat(queue.stats().waiting()).isZero();
		Await.until(() -> !owner.isAlive());
		this.clock.step(Duration.ofSeconds(2));
		assertThat(queue.size()).isZero();
		assertThat(queue.get()).isNull();
		assertThat(QueueKind.delaying(queue).heldEntries()).isZero();
	}

	@Test
	void shutDownWithDrainDropsWaitingItemsToo() {
		DelayingQueue<String> queue = queue(QueueKind.DELAYING);
		queue.addAfter("a", Duration.ofSeconds(1));
		Thread owner = QueueKind.delaying(queue).ownerThread();
		queue.shutDownWithDrain();
		Await.until(() -> !owner.isAlive());
		this.clock.step(Duration.ofSeconds(1));
		assertThat(queue.size()).isZero();
		assertThat(queue.stats().waiting()).isZero();
	}

	@Test
	void addAfterAfterShutDownIsIgnoredAndNotCountedAsARetry() {
		DelayingQueue<String> queue = queue(QueueKind.DELAYING);
		queue.shutDown();
		queue.addAfter("a", Duration.ofSeconds(1));
		queue.addAfter("b", Duration.ZERO);
		assertThat(queue.size()).isZero();
		assertThat(queue.stats().retries()).isZero();
		assertThat(QueueKind.delaying(queue).ownerThread()).isNull();
	}

	@Test
	void statsCountWaitingItemsAndEveryAddAfterAsARetry() throws Exception {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(1));
			queue.addAfter("a", Duration.ofSeconds(2));
			queue.addAfter("b", Duration.ofSeconds(2));
			queue.addAfter("c", Duration.ZERO);
			awaitOwnerIdle(queue);
			WorkQueueStats stats = queue.stats();
			assertThat(stats.waiting()).isEqualTo(2);
			assertThat(stats.retries()).isEqualTo(4);
			assertThat(stats.depth()).isOne();
			this.clock.step(Duration.ofSeconds(1));
			Await.until(() -> queue.stats().waiting() == 1);
			assertThat(queue.stats().depth()).isEqualTo(2);
		}
	}

	@Test
	void ownerThreadStartsWithTheFirstDelayedAddAndIsANamedDaemon() {
		try (DelayingQueue<String> named = WorkQueues.<String>builder()
			.name("orders")
			.clock(this.clock)
			.buildDelayingQueue();
				DelayingQueue<String> unnamed = WorkQueues.<String>builder().clock(this.clock).buildDelayingQueue()) {
			assertThat(QueueKind.delaying(named).ownerThread()).isNull();
			named.addAfter("a", Duration.ofSeconds(1));
			unnamed.addAfter("a", Duration.ofSeconds(1));
			Thread namedOwner = QueueKind.delaying(named).ownerThread();
			assertThat(namedOwner.getName()).isEqualTo("workqueue-orders-delay");
			assertThat(namedOwner.isDaemon()).isTrue();
			assertThat(QueueKind.delaying(unnamed).ownerThread().getName()).isEqualTo("workqueue-delay");
			named.addAfter("b", Duration.ofSeconds(1));
			assertThat(QueueKind.delaying(named).ownerThread()).as("one thread").isSameAs(namedOwner);
		}
	}

	@Test
	void idleOwnerSleepsOnTheClockUntilItsHeartbeat() {
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
		try (DelayingQueue<String> queue = WorkQueues.<String>builder()
			.clock(countingClock)
			.heartbeat(Duration.ofSeconds(3))
			.buildDelayingQueue()) {
			queue.addAfter("a", Duration.ofHours(1));
			Await.until(() -> this.clock.hasWaiters() && QueueKind.delaying(queue).isIdle());
			int before = readings.get();
			this.clock.step(Duration.ofSeconds(3));
			Await.until(() -> readings.get() > before && this.clock.hasWaiters() && QueueKind.delaying(queue).isIdle());
			assertThat(this.clock.numWaiters()).as("parked again").isOne();
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().waiting()).isOne();
		}
	}

	@Test
	void delayTooLargeForNanosecondsNeverOverflows() {
		try (DelayingQueue<String> queue = queue(QueueKind.DELAYING)) {
			queue.addAfter("a", Duration.ofSeconds(Long.MAX_VALUE));
			this.clock.step(Duration.ofDays(365 * 200));
			awaitOwnerIdle(queue);
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
			awaitSize(queue, 2000);
			Set<String> items = drain(queue).stream().collect(Collectors.toSet());
			assertThat(items).hasSize(2000);
			Await.until(() -> queue.stats().waiting() == 0);
			assertThat(QueueKind.delaying(queue).heldEntries()).isZero();
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
