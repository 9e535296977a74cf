package dev.workqueue.delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.workqueue.delay.DelayQueue.Entry;
import dev.workqueue.time.FakeClock;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Tests for {@link DelayQueue} on a {@link FakeClock}. Blocking calls run on a pool;
 * {@link FakeClock#numWaiters()} tells when they are parked.
 */
class DelayQueueTests {

	private final FakeClock clock = new FakeClock();

	private final DelayQueue<String> queue = new DelayQueue<>(this.clock);

	private final ExecutorService pool = Executors.newCachedThreadPool();

	@AfterEach
	void shutDownPool() {
		this.queue.close();
		this.pool.shutdownNow();
	}

	@Test
	void valuesComeOutInDueOrderOnceDue() throws Exception {
		this.queue.push("c", Duration.ofSeconds(3));
		this.queue.push("a", Duration.ofSeconds(1));
		this.queue.push("b", Duration.ofSeconds(2));
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofMillis(999));
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofMillis(1));
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("a");
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofSeconds(5));
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("b");
		assertThat(this.queue.take()).isEqualTo("c");
	}

	@Test
	void equalDueTimesComeOutInPushOrder() throws Exception {
		for (int i = 0; i < 20; i++) {
			this.queue.push("v" + i, Duration.ofSeconds(1));
		}
		this.clock.step(Duration.ofSeconds(1));
		for (int i = 0; i < 20; i++) {
			assertThat(this.queue.take()).isEqualTo("v" + i);
		}
	}

	@Test
	void rescheduledValueTiesAsIfPushedAtTheReschedule() throws Exception {
		Entry<String> first = this.queue.push("first", Duration.ofSeconds(2));
		this.queue.push("second", Duration.ofSeconds(2));
		assertThat(first.reschedule(Duration.ofSeconds(2))).isTrue();
		this.queue.push("third", Duration.ofSeconds(2));
		this.clock.step(Duration.ofSeconds(2));
		assertThat(List.of(this.queue.take(), this.queue.take(), this.queue.take())).containsExactly("second", "first",
				"third");
	}

	static Stream<Duration> nonPositiveDelays() {
		return Stream.of(Duration.ZERO, Duration.ofNanos(-1), Duration.ofDays(-3), Duration.ofSeconds(Long.MIN_VALUE));
	}

	@ParameterizedTest
	@MethodSource("nonPositiveDelays")
	void nonPositiveDelayIsDueAtOnceInPushOrder(Duration delay) throws Exception {
		this.queue.push("zero", Duration.ZERO);
		this.queue.push("other", delay);
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("zero");
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("other");
	}

	@Test
	void hugeDelayIsClampedAndNeverDue() throws Exception {
		this.queue.push("never", Duration.ofSeconds(Long.MAX_VALUE));
		this.clock.step(Duration.ofDays(365L * 100));
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		assertThat(this.queue.size()).isOne();
	}

	@Test
	void sizeCountsEveryPendingValueDueOrNot() throws Exception {
		Entry<String> cancelled = this.queue.push("cancelled", Duration.ofSeconds(5));
		this.queue.push("due", Duration.ZERO);
		this.queue.push("later", Duration.ofSeconds(5));
		assertThat(this.queue.size()).isEqualTo(3);
		cancelled.cancel();
		assertThat(this.queue.size()).isEqualTo(2);
		this.queue.take();
		assertThat(this.queue.size()).isOne();
	}

	@Test
	void cancelSucceedsOnceAndNeverAfterTake() throws Exception {
		Entry<String> cancelled = this.queue.push("cancelled", Duration.ofSeconds(1));
		Entry<String> taken = this.queue.push("taken", Duration.ofSeconds(1));
		assertThat(cancelled.cancel()).isTrue();
		assertThat(cancelled.cancel()).isFalse();
		assertThat(cancelled.reschedule(Duration.ZERO)).isFalse();
		this.clock.step(Duration.ofSeconds(1));
		assertThat(this.queue.take()).isEqualTo("taken");
		assertThat(taken.value()).isEqualTo("taken");
		assertThat(taken.cancel()).isFalse();
		assertThat(taken.reschedule(Duration.ZERO)).isFalse();
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
	}

	@Test
	void rescheduleMovesAValueEarlierOrLaterFromNow() throws Exception {
		Entry<String> earlier = this.queue.push("earlier", Duration.ofSeconds(10));
		Entry<String> later = this.queue.push("later", Duration.ofSeconds(1));
		this.clock.step(Duration.ofMillis(500));
		assertThat(earlier.reschedule(Duration.ofSeconds(1))).isTrue();
		assertThat(later.reschedule(Duration.ofSeconds(2))).isTrue();
		this.clock.step(Duration.ofMillis(999));
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofMillis(1));
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("earlier");
		assertThat(this.queue.poll(Duration.ZERO)).isNull();
		this.clock.step(Duration.ofSeconds(1));
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("later");
	}

	@Test
	void takeBlocksUntilTheFirstValueIsDue() throws Exception {
		this.queue.push("v", Duration.ofSeconds(2));
		Future<String> taken = this.pool.submit(this.queue::take);
		soon().until(() -> this.clock.numWaiters() == 1);
		this.clock.step(Duration.ofMillis(1_999));
		soon().until(() -> this.clock.numWaiters() == 1);
		assertThat(taken).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(taken.get(1, TimeUnit.SECONDS)).isEqualTo("v");
	}

	@Test
	void takeOnAnEmptyQueueWakesForAValuePushedLater() throws Exception {
		Future<String> taken = this.pool.submit(this.queue::take);
		soon().until(() -> this.clock.numWaiters() == 1);
		this.queue.push("v", Duration.ZERO);
		assertThat(taken.get(1, TimeUnit.SECONDS)).isEqualTo("v");
	}

	@Test
	void takeWakesEarlyWhenAnEarlierValueArrives() throws Exception {
		this.queue.push("late", Duration.ofSeconds(10));
		Future<String> taken = this.pool.submit(this.queue::take);
		soon().until(() -> this.clock.numWaiters() == 1);
		this.queue.push("early", Duration.ofSeconds(1));
		this.clock.step(Duration.ofSeconds(1));
		assertThat(taken.get(1, TimeUnit.SECONDS)).isEqualTo("early");
	}

	@Test
	void takeWakesWhenRescheduleMakesAValueDue() throws Exception {
		Entry<String> entry = this.queue.push("v", Duration.ofHours(1));
		Future<String> taken = this.pool.submit(this.queue::take);
		soon().until(() -> this.clock.numWaiters() == 1);
		entry.reschedule(Duration.ZERO);
		assertThat(taken.get(1, TimeUnit.SECONDS)).isEqualTo("v");
	}

	@Test
	void severalTakersEachGetOneValue() throws Exception {
		List<Future<String>> takers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			takers.add(this.pool.submit(this.queue::take));
		}
		soon().until(() -> this.clock.numWaiters() == 3);
		for (int i = 0; i < 3; i++) {
			this.queue.push("v" + i, Duration.ofSeconds(i + 1));
		}
		this.clock.step(Duration.ofSeconds(3));
		List<String> values = new ArrayList<>();
		for (Future<String> taker : takers) {
			values.add(taker.get(1, TimeUnit.SECONDS));
		}
		assertThat(values).containsExactlyInAnyOrder("v0", "v1", "v2");
	}

	@Test
	void pollTimesOutOnTheQueuesClock() throws Exception {
		this.queue.push("too late", Duration.ofSeconds(5));
		Future<String> polled = this.pool.submit(() -> this.queue.poll(Duration.ofSeconds(2)));
		soon().until(() -> this.clock.numWaiters() == 1);
		this.clock.step(Duration.ofMillis(1_999));
		soon().until(() -> this.clock.numWaiters() == 1);
		assertThat(polled).isNotDone();
		this.clock.step(Duration.ofMillis(1));
		assertThat(polled.get(1, TimeUnit.SECONDS)).isNull();
		assertThat(this.queue.size()).isOne();
	}

	@Test
	void pollReturnsAValueDueWithinItsTimeout() throws Exception {
		this.queue.push("v", Duration.ofSeconds(1));
		Future<String> polled = this.pool.submit(() -> this.queue.poll(Duration.ofSeconds(2)));
		soon().until(() -> this.clock.numWaiters() == 1);
		this.clock.step(Duration.ofSeconds(1));
		assertThat(polled.get(1, TimeUnit.SECONDS)).isEqualTo("v");
	}

	@Test
	void negativePollTimeoutMeansZero() throws Exception {
		assertThat(this.queue.poll(Duration.ofSeconds(-1))).isNull();
		this.queue.push("v", Duration.ZERO);
		assertThat(this.queue.poll(Duration.ofSeconds(-1))).isEqualTo("v");
	}

	@Test
	void takeIsInterruptible() throws Exception {
		Future<String> taken = this.pool.submit(this.queue::take);
		soon().until(() -> this.clock.numWaiters() == 1);
		taken.cancel(true);
		soon().until(() -> this.clock.numWaiters() == 0);
		this.queue.push("v", Duration.ZERO);
		assertThat(this.queue.poll(Duration.ZERO)).isEqualTo("v");
	}

	@Test
	void closeWakesBlockedTakersAndRejectsPushes() throws Exception {
		this.queue.push("later", Duration.ofSeconds(10));
		Future<String> leader = this.pool.submit(this.queue::take);
		Future<String> follower = this.pool.submit(this.queue::take);
		Future<String> poller = this.pool.submit(() -> this.queue.poll(Duration.ofHours(1)));
		soon().until(() -> this.clock.numWaiters() == 3);
		this.queue.close();
		assertThat(leader.get(1, TimeUnit.SECONDS)).isNull();
		assertThat(follower.get(1, TimeUnit.SECONDS)).isNull();
		assertThat(poller.get(1, TimeUnit.SECONDS)).isNull();
		assertThatIllegalStateException().isThrownBy(() -> this.queue.push("v", Duration.ZERO));
		assertThat(this.queue.size()).isOne();
	}

	@Test
	void afterCloseDueValuesStillComeOutWithoutBlocking() throws Exception {
		this.queue.push("due", Duration.ZERO);
		Entry<String> later = this.queue.push("later", Duration.ofSeconds(10));
		this.queue.close();
		assertThat(this.queue.take()).isEqualTo("due");
		assertThat(this.queue.take()).isNull();
		assertThat(this.queue.poll(Duration.ofHours(1))).isNull();
		this.clock.step(Duration.ofSeconds(10));
		assertThat(this.queue.take()).isEqualTo("later");
		assertThat(later.cancel()).isFalse();
		assertThat(this.queue.size()).isZero();
	}

	@Test
	void streamYieldsValuesInDueOrderAndEndsOnClose() throws Exception {
		Future<List<String>> streamed = this.pool
			.submit(() -> this.queue.stream().map(String::toUpperCase).collect(Collectors.toList()));
		soon().until(() -> this.clock.numWaiters() == 1);
		this.queue.push("b", Duration.ofSeconds(2));
		this.queue.push("a", Duration.ofSeconds(1));
		this.clock.step(Duration.ofSeconds(2));
		soon().until(() -> this.queue.size() == 0 && this.clock.numWaiters() == 1);
		this.queue.close();
		assertThat(streamed.get(1, TimeUnit.SECONDS)).containsExactly("A", "B");
	}

	@Test
	void streamEndsWhenItsThreadIsInterruptedAndKeepsTheInterrupt() throws Exception {
		Future<Boolean> interruptedAfterStream = this.pool.submit(() -> {
			Thread.currentThread().interrupt();
			assertThat(this.queue.stream().count()).isZero();
			return Thread.currentThread().isInterrupted();
		});
		assertThat(interruptedAfterStream.get(1, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void severalStreamsShareTheValues() throws Exception {
		Future<List<String>> first = this.pool.submit(() -> this.queue.stream().toList());
		Future<List<String>> second = this.pool.submit(() -> this.queue.stream().toList());
		soon().until(() -> this.clock.numWaiters() == 2);
		for (int i = 0; i < 100; i++) {
			this.queue.push("v" + i, Duration.ZERO);
		}
		soon().until(() -> this.queue.size() == 0);
		this.queue.close();
		List<String> all = new ArrayList<>(first.get(1, TimeUnit.SECONDS));
		all.addAll(second.get(1, TimeUnit.SECONDS));
		assertThat(all).hasSize(100).doesNotHaveDuplicates();
	}

	@Test
	void nullArgumentsAreRejectedNamingTheArgument() {
		assertThatNullPointerException().isThrownBy(() -> new DelayQueue<String>(null)).withMessage("clock");
		assertThatNullPointerException().isThrownBy(() -> this.queue.push(null, Duration.ZERO)).withMessage("value");
		assertThatNullPointerException().isThrownBy(() -> this.queue.push("v", null)).withMessage("delay");
		assertThatNullPointerException().isThrownBy(() -> this.queue.poll(null)).withMessage("timeout");
		Entry<String> entry = this.queue.push("v", Duration.ZERO);
		assertThatNullPointerException().isThrownBy(() -> entry.reschedule(null)).withMessage("delay");
	}

	static ConditionFactory soon() {
		return Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(1));
	}

}
