package dev.workqueue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.spi.Poller;
import dev.workqueue.spi.PollerFactory;
import dev.workqueue.spi.Pollers;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * A poller's wake-up ends that poller's current or next poll, and nothing else: how
 * worker containers pause without interrupts. Run on every queue {@link WorkQueues}
 * builds, each found through the capability lookup (through the wrappers), and on a queue
 * of the application's own through the fallback.
 */
class PollerTests {

	private static final Duration LONG = Duration.ofMinutes(5);

	private static final Duration DEADLINE = Duration.ofSeconds(5);

	private static Poller<String> ownPoller(WorkQueue<String> queue) {
		@SuppressWarnings("unchecked")
		PollerFactory<String> factory = queue.capability(PollerFactory.class).orElseThrow();
		return factory.newPoller();
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void everyQueueOffersItsEnginesPollersThroughTheCapabilityLookup(QueueKind kind) {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		assertThat(queue.capability(PollerFactory.class)).containsInstanceOf(DelayingWorkQueue.class)
			.contains(QueueKind.engine(queue));
		assertThat(Pollers.of(queue).getClass().getEnclosingClass()).isEqualTo(DelayingWorkQueue.class);
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aWakeUpEndsAWaitingPollAndOnlyThatOne(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> poller = ownPoller(queue);
		try (BlockingCall<Prioritized<String>> poll = BlockingCall.start(() -> poller.poll(LONG))) {
			await().atMost(DEADLINE).until(poll::isBlocked);
			poller.wakeup();
			assertThat(poll.result()).isNull();
		}
		queue.add("x");
		assertThat(poller.poll(Duration.ZERO)).as("the wake-up is used up").isEqualTo(new Prioritized<>("x", 0));
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aWakeUpBeforeThePollEndsItEvenWithItemsReady(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> poller = ownPoller(queue);
		poller.wakeup();
		queue.add("x");
		assertThat(poller.poll(LONG)).isNull();
		assertThat(queue.size()).as("nothing taken").isOne();
		assertThat(poller.poll(LONG)).isEqualTo(new Prioritized<>("x", 0));
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void severalWakeUpsEndOnePoll(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> poller = ownPoller(queue);
		poller.wakeup();
		poller.wakeup();
		poller.wakeup();
		assertThat(poller.poll(LONG)).isNull();
		try (BlockingCall<Prioritized<String>> poll = BlockingCall.start(() -> poller.poll(LONG))) {
			await().atMost(DEADLINE).until(poll::isBlocked);
			queue.add("x");
			assertThat(poll.result()).as("the next poll waits as usual").isEqualTo(new Prioritized<>("x", 0));
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aWakeUpLeavesOtherPollersAndPlainPollsWaiting(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> woken = ownPoller(queue);
		Poller<String> other = ownPoller(queue);
		try (BlockingCall<Prioritized<String>> wokenPoll = BlockingCall.start(() -> woken.poll(LONG));
				BlockingCall<Prioritized<String>> otherPoll = BlockingCall.start(() -> other.poll(LONG));
				BlockingCall<String> plainPoll = BlockingCall.start(() -> queue.poll(LONG))) {
			await().atMost(DEADLINE)
				.until(() -> wokenPoll.isBlocked() && otherPoll.isBlocked() && plainPoll.isBlocked());
			woken.wakeup();
			assertThat(wokenPoll.result()).isNull();
			assertThat(otherPoll.isDone()).isFalse();
			assertThat(plainPoll.isDone()).isFalse();
			queue.add("x");
			queue.add("y");
			assertThat(List.of(otherPoll.result().item(), plainPoll.result())).containsExactlyInAnyOrder("x", "y");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aPollWokenWhileWaitingTakesNothingAddedAfterTheWakeUpAndAGetStillGetsIt(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> poller = ownPoller(queue);
		try (BlockingCall<String> get = BlockingCall.start(queue::get);
				BlockingCall<Prioritized<String>> poll = BlockingCall.start(() -> poller.poll(LONG))) {
			await().atMost(DEADLINE).until(() -> get.isBlocked() && poll.isBlocked());
			// Both under the queue's lock in turn: the poll may wake with the item there.
			poller.wakeup();
			queue.add("x");
			assertThat(poll.result()).isNull();
			assertThat(get.result()).as("the add's signal reaches the get").isEqualTo("x");
		}
	}

	@ParameterizedTest
	@EnumSource(value = QueueKind.class, names = { "DELAYING", "RATE_LIMITING", "PRIORITY" })
	void aWokenLeaderHandsTheWaitForTheEarliestDelayOn(QueueKind kind) throws Exception {
		FakeClock clock = new FakeClock();
		DelayingQueue<String> queue = (DelayingQueue<String>) kind.build(WorkQueues.<String>builder().clock(clock));
		Poller<String> poller = ownPoller(queue);
		queue.addAfter("x", Duration.ofSeconds(1));
		try (BlockingCall<Prioritized<String>> leader = BlockingCall.start(() -> poller.poll(LONG))) {
			await().atMost(DEADLINE).until(() -> clock.numWaiters() == 1);
			try (BlockingCall<String> get = BlockingCall.start(queue::get)) {
				await().atMost(DEADLINE).until(get::isBlocked);
				poller.wakeup();
				assertThat(leader.result()).isNull();
				await("the get leads now").atMost(DEADLINE).until(() -> clock.numWaiters() == 1);
				clock.step(Duration.ofSeconds(1));
				assertThat(get.result()).isEqualTo("x");
			}
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aDoneWithTheNextPollEndsTheItemFirstAndADirtyOneLinesUpBehindTheReadyOnes(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		Poller<String> poller = Pollers.of(queue);
		queue.addAll(List.of("a", "b", "a"));
		assertThat(queue.size()).isEqualTo(2);
		assertThat(queue.get()).isEqualTo("a");
		queue.add("a");
		assertThat(poller.doneAndPoll("a", Duration.ZERO).item()).isEqualTo("b");
		assertThat(poller.doneAndPoll("b", Duration.ZERO).item()).isEqualTo("a");
		poller.wakeup();
		assertThat(poller.doneAndPoll("a", LONG)).as("woken: done, and nothing taken").isNull();
		assertThat(queue.size()).isZero();
		queue.add("a");
		assertThat(queue.get()).as("a is not processing any more: queued at once").isEqualTo("a");
	}

	@Test
	void aPriorityQueuesPollerHandsOutTheItemsPriorityAndADoneItemsDirtyPriority() throws Exception {
		PriorityQueue<String> queue = WorkQueues.<String>builder()
			.buildPriorityQueue(RateLimiters.defaultControllerRateLimiter());
		Poller<String> poller = Pollers.of(queue);
		queue.add("low", -3);
		queue.add("high", 7);
		assertThat(poller.poll(Duration.ZERO)).isEqualTo(new Prioritized<>("high", 7));
		queue.add("high", 9);
		assertThat(poller.doneAndPoll("high", Duration.ZERO)).as("high again, dirty with 9")
			.isEqualTo(new Prioritized<>("high", 9));
		assertThat(poller.doneAndPoll("high", Duration.ZERO)).isEqualTo(new Prioritized<>("low", -3));
	}

	@Test
	void aBulkAddWithANullItemAddsNone() {
		WorkQueue<String> queue = WorkQueues.<String>builder().buildQueue();
		assertThatNullPointerException().isThrownBy(() -> queue.addAll(Arrays.asList("a", null)));
		assertThat(queue.size()).isZero();
	}

	@Test
	void aQueueWithoutPollersGetsOneOverItsPublicMethodsWhoseWakeUpEndsTheNextPoll() throws Exception {
		// A queue of the application's own: its methods passed on, the defaults its own.
		WorkQueue<String> real = WorkQueues.<String>builder().buildQueue();
		@SuppressWarnings("unchecked")
		WorkQueue<String> plain = (WorkQueue<String>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { WorkQueue.class }, (proxy, method, args) -> method.isDefault()
						? InvocationHandler.invokeDefault(proxy, method, args) : method.invoke(real, args));
		assertThat(plain.capability(PollerFactory.class)).isEmpty();
		Poller<String> poller = Pollers.of(plain);
		poller.wakeup();
		plain.add("x");
		assertThat(poller.poll(LONG)).as("the next poll ends").isNull();
		assertThat(poller.poll(Duration.ofSeconds(1))).isEqualTo(new Prioritized<>("x", 0));
		plain.add("y");
		assertThat(poller.doneAndPoll("x", Duration.ofSeconds(1))).isEqualTo(new Prioritized<>("y", 0));
		plain.add("x");
		assertThat(plain.size()).as("x was done").isOne();
	}

}
