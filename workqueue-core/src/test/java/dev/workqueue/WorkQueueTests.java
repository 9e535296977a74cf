package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import dev.workqueue.time.Clock;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The plain work queue's rules (client-go's {@code queue.go} plus our fine print),
 * checked against every kind of queue {@link WorkQueues} builds.
 */
class WorkQueueTests {

	private final FakeClock clock = new FakeClock();

	private WorkQueue<String> queue(QueueKind kind) {
		return kind.build(WorkQueues.<String>builder().clock(this.clock));
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void distinctItemsComeOutInTheOrderTheyWereAdded(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			List.of("c", "a", "d", "b").forEach(queue::add);
			assertThat(drain(queue)).containsExactly("c", "a", "d", "b");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void addingAQueuedItemAgainIsANoOpAndKeepsItsPlace(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.add("b");
			queue.add("a");
			queue.add("a");
			assertThat(queue.size()).isEqualTo(2);
			assertThat(drain(queue)).containsExactly("a", "b");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemAddedWhileProcessingIsNotHandedOutUntilDone(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a");
			assertThat(queue.size()).isZero();
			assertThat(queue.poll(Duration.ZERO)).as("never to two workers at once").isNull();
			queue.done("a");
			assertThat(queue.size()).isOne();
			assertThat(queue.poll(Duration.ZERO)).isEqualTo("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemAddedWhileProcessingIsRequeuedAtTheTailOnDone(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a");
			queue.add("b");
			queue.done("a");
			queue.add("c");
			assertThat(drain(queue)).containsExactly("b", "a", "c");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemAddedSeveralTimesWhileProcessingIsRequeuedOnce(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			queue.add("a");
			queue.add("a");
			queue.done("a");
			assertThat(drain(queue)).containsExactly("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemDoneWithoutBeingAddedAgainLeavesTheQueue(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			queue.done("a");
			assertThat(queue.size()).isZero();
			assertThat(queue.stats().processing()).isZero();
			assertThat(QueueKind.engine(queue).trackedItems()).isZero();
			queue.add("a");
			assertThat(queue.poll(Duration.ZERO)).as("added again afterwards: a new item").isEqualTo("a");
		}
	}

	static Stream<Arguments> doneOfAnItemNotBeingProcessed() {
		return Stream.of(doneCase("an unknown item", (queue) -> {
		}, 0), doneCase("a queued item", (queue) -> queue.add("a"), 1), doneCase("an item already done", (queue) -> {
			queue.add("a");
			take(queue);
			queue.done("a");
		}, 0));
	}

	private static Arguments doneCase(String name, Consumer<WorkQueue<String>> setUp, int sizeAfter) {
		return Arguments.of(Named.of(name, setUp), sizeAfter);
	}

	@ParameterizedTest
	@MethodSource
	void doneOfAnItemNotBeingProcessed(Consumer<WorkQueue<String>> setUp, int sizeAfter) throws Exception {
		try (WorkQueue<String> queue = WorkQueues.<String>builder().buildQueue()) {
			setUp.accept(queue);
			queue.done("a");
			assertThat(queue.size()).as("a no-op").isEqualTo(sizeAfter);
			assertThat(queue.stats().processing()).isZero();
			assertThat(drain(queue)).hasSize(sizeAfter);
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void sizeCountsOnlyItemsReadyToBeHandedOut(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.add("b");
			queue.add("c");
			assertThat(queue.size()).isEqualTo(3);
			queue.get();
			assertThat(queue.size()).isEqualTo(2);
			assertThat(queue.stats().depth()).isEqualTo(2);
			assertThat(queue.stats().processing()).isOne();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void getBlocksUntilAnItemIsAdded(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind); BlockingCall<String> get = BlockingCall.start(queue::get)) {
			get.awaitBlocked();
			queue.add("a");
			assertThat(get.result()).isEqualTo("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void pollTimesOutOnTheQueuesClock(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind);
				BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofSeconds(5)))) {
			Await.until(this.clock::hasWaiters);
			this.clock.step(Duration.ofMillis(4999));
			assertThat(this.clock.hasWaiters()).isTrue();
			assertThat(poll.isDone()).isFalse();
			this.clock.step(Duration.ofMillis(1));
			assertThat(poll.result()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void pollReturnsAnItemAddedWhileItWaits(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind);
				BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofSeconds(5)))) {
			Await.until(this.clock::hasWaiters);
			queue.add("a");
			assertThat(poll.result()).isEqualTo("a");
		}
	}

	static Stream<Duration> timeoutsThatMeanZero() {
		return Stream.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofSeconds(-5),
				Duration.ofSeconds(Long.MIN_VALUE));
	}

	@ParameterizedTest
	@MethodSource("timeoutsThatMeanZero")
	void pollWithATimeoutOfZeroOrLessDoesNotWait(Duration timeout) throws Exception {
		try (WorkQueue<String> queue = WorkQueues.<String>builder().clock(this.clock).buildQueue()) {
			assertThat(queue.poll(timeout)).isNull();
			assertThat(this.clock.hasWaiters()).isFalse();
			queue.add("a");
			assertThat(queue.poll(timeout)).isEqualTo("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void pollWithATimeoutTooLargeForNanosecondsWaitsWithoutOverflowing(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind);
				BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofSeconds(Long.MAX_VALUE)))) {
			Await.until(this.clock::hasWaiters);
			this.clock.step(Duration.ofDays(365 * 100));
			assertThat(poll.isDone()).isFalse();
			queue.add("a");
			assertThat(poll.result()).isEqualTo("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void getInterruptedWhileWaitingThrows(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind); BlockingCall<String> get = BlockingCall.start(queue::get)) {
			get.awaitBlocked().interrupt();
			assertThat(get.failure()).isInstanceOf(InterruptedException.class);
			queue.add("a");
			assertThat(queue.size()).as("nothing was taken").isOne();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void addAfterShutDownIsIgnored(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.shutDown();
			queue.add("a");
			assertThat(queue.size()).isZero();
			assertThat(queue.get()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void getHandsOutWhatIsQueuedAfterShutDownThenNullWithoutBlocking(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.add("b");
			queue.shutDown();
			assertThat(queue.isShuttingDown()).isTrue();
			assertThat(queue.get()).isEqualTo("a");
			assertThat(queue.get()).isEqualTo("b");
			assertThat(queue.get()).isNull();
			assertThat(queue.get()).isNull();
			assertThat(queue.poll(Duration.ofDays(1))).isNull();
			assertThat(this.clock.hasWaiters()).isFalse();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void shutDownReleasesBlockedConsumersWithNull(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind);
				BlockingCall<String> get = BlockingCall.start(queue::get);
				BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(Duration.ofDays(1)))) {
			get.awaitBlocked();
			poll.awaitBlocked();
			queue.shutDown();
			assertThat(get.result()).isNull();
			assertThat(poll.result()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void shutDownWithDrainWaitsUntilNothingIsBeingProcessed(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.add("b");
			queue.get();
			queue.get();
			try (BlockingCall<Boolean> drain = BlockingCall.start(() -> {
				queue.shutDownWithDrain();
				return true;
			})) {
				drain.awaitBlocked();
				assertThat(queue.isShuttingDown()).isTrue();
				queue.add("c");
				queue.done("a");
				assertThat(drain.isBlocked()).as("b is still processing").isTrue();
				assertThat(drain.isDone()).isFalse();
				queue.done("b");
				assertThat(drain.result()).isTrue();
			}
			assertThat(queue.get()).as("c was ignored").isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void shutDownWithDrainReturnsAtOnceWhenNothingIsBeingProcessed(QueueKind kind) {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.shutDownWithDrain();
			assertThat(queue.isShuttingDown()).isTrue();
			assertThat(queue.size()).as("queued items stay to be handed out").isOne();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void shutDownFromAnotherThreadReleasesShutDownWithDrain(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			try (BlockingCall<Boolean> drain = BlockingCall.start(() -> {
				queue.shutDownWithDrain();
				return true;
			})) {
				drain.awaitBlocked();
				queue.shutDown();
				assertThat(drain.result()).isTrue();
			}
			assertThat(queue.stats().processing()).isOne();
			queue.done("a");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void interruptedShutDownWithDrainReturnsEarlyKeepingTheInterrupt(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			try (BlockingCall<Boolean> drain = BlockingCall.start(() -> {
				queue.shutDownWithDrain();
				return Thread.currentThread().isInterrupted();
			})) {
				drain.awaitBlocked().interrupt();
				assertThat(drain.result()).as("interrupt status kept").isTrue();
			}
			assertThat(queue.stats().processing()).isOne();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void shutDownWithDrainCalledWhileInterruptedReturnsAtOnce(QueueKind kind) {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			take(queue);
			Thread.currentThread().interrupt();
			try {
				queue.shutDownWithDrain();
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void doneAfterShutDownIsLegal(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			queue.shutDown();
			queue.done("a");
			assertThat(queue.stats().processing()).isZero();
			assertThat(queue.get()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemAddedWhileProcessingIsStillHandedOutAfterShutDownAndDone(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add("a");
			queue.get();
			queue.add("a");
			queue.shutDown();
			queue.done("a");
			assertThat(queue.get()).isEqualTo("a");
			queue.done("a");
			assertThat(queue.get()).isNull();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void closeShutsDown(QueueKind kind) {
		WorkQueue<String> queue = queue(kind);
		queue.close();
		assertThat(queue.isShuttingDown()).isTrue();
		queue.add("a");
		assertThat(queue.size()).isZero();
		queue.close();
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void nullIsRejectedNamingTheParameter(QueueKind kind) {
		try (WorkQueue<String> queue = queue(kind)) {
			assertThatNullPointerException().isThrownBy(() -> queue.add(null)).withMessage("item");
			assertThatNullPointerException().isThrownBy(() -> queue.done(null)).withMessage("item");
			assertThatNullPointerException().isThrownBy(() -> queue.poll(null)).withMessage("timeout");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void nameIsEmptyWhenUnnamed(QueueKind kind) {
		try (WorkQueue<String> queue = queue(kind)) {
			assertThat(queue.name()).isEmpty();
		}
		try (WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().name("orders"))) {
			assertThat(queue.name()).isEqualTo("orders");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void withoutMetricsTheQueueNeverReadsItsClockOnAddGetAndDone(QueueKind kind) throws Exception {
		Clock untouchable = () -> {
			throw new AssertionError("clock read");
		};
		try (WorkQueue<String> queue = kind.build(WorkQueues.<String>builder().clock(untouchable))) {
			queue.add("a");
			queue.add("b");
			assertThat(queue.get()).isEqualTo("a");
			queue.add("a");
			queue.done("a");
			assertThat(queue.get()).isEqualTo("b");
			queue.done("b");
			assertThat(queue.get()).isEqualTo("a");
			queue.done("a");
			assertThat(queue.stats().processing()).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void itemsAreMatchedByEqualsNotIdentity(QueueKind kind) throws Exception {
		try (WorkQueue<String> queue = queue(kind)) {
			queue.add(new String("a"));
			queue.add(new String("a"));
			String item = queue.get();
			queue.add(new String("a"));
			queue.done(new String("a"));
			assertThat(item).isEqualTo("a");
			assertThat(drain(queue)).containsExactly("a");
		}
	}

	static String take(WorkQueue<String> queue) {
		try {
			return queue.poll(Duration.ZERO);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Takes every ready item, marking each done, without blocking. */
	static List<String> drain(WorkQueue<String> queue) throws InterruptedException {
		List<String> items = new ArrayList<>();
		for (String item = queue.poll(Duration.ZERO); item != null; item = queue.poll(Duration.ZERO)) {
			items.add(item);
			queue.done(item);
		}
		return items;
	}

}
