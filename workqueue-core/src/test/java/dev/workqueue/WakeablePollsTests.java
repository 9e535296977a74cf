package dev.workqueue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * A wake-up ends the wakeable polls made with an earlier epoch, waiting or about to wait,
 * and nothing else: how worker containers pause without interrupts.
 */
class WakeablePollsTests {

	private static final Duration LONG = Duration.ofMinutes(5);

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aWakeUpEndsAWaitingPoll(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		WakeablePolls<String> polls = WakeablePolls.of(queue).orElseThrow();
		long epoch = polls.pollEpoch();
		try (BlockingCall<String> poll = BlockingCall.start(() -> polls.pollUnlessWoken(LONG, epoch))) {
			await().atMost(Duration.ofSeconds(5)).until(poll::isBlocked);
			polls.wakePolls();
			assertThat(poll.result()).isNull();
		}
		queue.add("x");
		assertThat(polls.pollUnlessWoken(Duration.ZERO, polls.pollEpoch())).as("a fresh epoch polls as usual")
			.isEqualTo("x");
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aWakeUpBeforeThePollBeganEndsItEvenWithItemsReady(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		WakeablePolls<String> polls = WakeablePolls.of(queue).orElseThrow();
		long epoch = polls.pollEpoch();
		polls.wakePolls();
		queue.add("x");
		assertThat(polls.pollUnlessWoken(LONG, epoch)).isNull();
		assertThat(queue.size()).as("nothing taken").isOne();
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aPollWokenWhileWaitingTakesNothingAddedAfterTheWakeUpAndAGetStillGetsIt(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		WakeablePolls<String> polls = WakeablePolls.of(queue).orElseThrow();
		long epoch = polls.pollEpoch();
		try (BlockingCall<String> get = BlockingCall.start(queue::get);
				BlockingCall<String> poll = BlockingCall.start(() -> polls.pollUnlessWoken(LONG, epoch))) {
			await().atMost(Duration.ofSeconds(5)).until(() -> get.isBlocked() && poll.isBlocked());
			// Both under the queue's lock in turn: the poll may wake with the item there.
			polls.wakePolls();
			queue.add("x");
			assertThat(poll.result()).isNull();
			assertThat(get.result()).as("the add's signal reaches the get").isEqualTo("x");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void plainGetsAndPollsAreNotWoken(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		WakeablePolls<String> polls = WakeablePolls.of(queue).orElseThrow();
		try (BlockingCall<String> poll = BlockingCall.start(() -> queue.poll(LONG))) {
			await().atMost(Duration.ofSeconds(5)).until(poll::isBlocked);
			polls.wakePolls();
			queue.add("x");
			assertThat(poll.result()).isEqualTo("x");
		}
	}

	@ParameterizedTest
	@EnumSource(QueueKind.class)
	void aDoneWithTheNextPollEndsTheItemFirstAndADirtyOneLinesUpBehindTheReadyOnes(QueueKind kind) throws Exception {
		WorkQueue<String> queue = kind.build(WorkQueues.builder());
		WakeablePolls<String> polls = WakeablePolls.forPolling(queue);
		queue.addAll(List.of("a", "b", "a"));
		assertThat(queue.size()).isEqualTo(2);
		assertThat(queue.get()).isEqualTo("a");
		queue.add("a");
		assertThat(polls.doneAndPoll("a", Duration.ZERO, polls.pollEpoch()).item()).isEqualTo("b");
		assertThat(polls.doneAndPoll("b", Duration.ZERO, polls.pollEpoch()).item()).isEqualTo("a");
		long epoch = polls.pollEpoch();
		polls.wakePolls();
		assertThat(polls.doneAndPoll("a", LONG, epoch)).as("woken: done, and nothing taken").isNull();
		assertThat(queue.size()).isZero();
		queue.add("a");
		assertThat(queue.get()).as("a is not processing any more: queued at once").isEqualTo("a");
	}

	@Test
	void aBulkAddWithANullItemAddsNone() {
		WorkQueue<String> queue = WorkQueues.<String>builder().buildQueue();
		assertThatNullPointerException().isThrownBy(() -> queue.addAll(Arrays.asList("a", null)));
		assertThat(queue.size()).isZero();
	}

	@Test
	void aQueueWithoutWakeablePollsPollsPlainly() throws Exception {
		// A queue of the application's own: every call passed on, no wakeable polls.
		WorkQueue<String> real = WorkQueues.<String>builder().buildQueue();
		@SuppressWarnings("unchecked")
		WorkQueue<String> plain = (WorkQueue<String>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { WorkQueue.class }, (proxy, method, args) -> method.invoke(real, args));
		assertThat(WakeablePolls.of(plain)).isEmpty();
		WakeablePolls<String> polls = WakeablePolls.forPolling(plain);
		long epoch = polls.pollEpoch();
		polls.wakePolls();
		plain.add("x");
		assertThat(polls.pollUnlessWoken(Duration.ofSeconds(1), epoch)).isEqualTo("x");
		plain.add("y");
		assertThat(polls.doneAndPoll("x", Duration.ofSeconds(1), epoch).item()).isEqualTo("y");
		plain.add("x");
		assertThat(plain.size()).as("x was done").isOne();
	}

}
