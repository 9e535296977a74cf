package dev.workqueue.store;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.workqueue.time.FakeClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The linger of an add group's leader for the callers of the previous batch: whom it
 * waits for, its bound, and when there is none. Time is a fake clock stepped by the test.
 */
class CallerLingerTests {

	private static final Duration ROUND_TRIP = Duration.ofMillis(1);

	private final FakeClock clock = new FakeClock();

	private final CallerLinger linger = new CallerLinger(this.clock);

	@Test
	void theNextLeaderWaitsHalfARoundTripForThePreviousBatchsCallersBesideThoseQueuedMeanwhile() {
		batch(2, 1);
		assertThat(this.linger.boundNanos(queued(1))).isEqualTo(ROUND_TRIP.toNanos() / 2);
		// The one queued meanwhile and the two coming back.
		assertThat(this.linger.expectsMore(queued(2))).isTrue();
		assertThat(this.linger.expectsMore(queued(3))).isFalse();
		// Later after the answer, less is left.
		this.clock.step(ROUND_TRIP.dividedBy(4));
		assertThat(this.linger.boundNanos(queued(1))).isEqualTo(ROUND_TRIP.toNanos() / 4);
	}

	@Test
	void aCallerAloneIsNeverWaitedFor() {
		batch(1, 0);
		assertThat(this.linger.boundNanos(queued(1))).isZero();
		assertThat(this.linger.expectsMore(queued(1))).isFalse();
	}

	@Test
	void aLeaderThatFindsAsManyQueuedAsExpectedDoesNotWait() {
		batch(4, 0);
		assertThat(this.linger.boundNanos(queued(4))).isZero();
	}

	@Test
	void aLeaderThatComesAfterHalfARoundTripDoesNotWait() {
		batch(4, 0);
		this.clock.step(ROUND_TRIP);
		assertThat(this.linger.boundNanos(queued(1))).isZero();
	}

	@Test
	void theBoundIsAMillisecondAtMost() {
		this.linger.writing(4);
		this.clock.step(Duration.ofSeconds(1));
		this.linger.written(4, queued(0));
		assertThat(this.linger.boundNanos(queued(1))).isEqualTo(LingerPace.MAX_NANOS);
	}

	@Test
	void aLingerThatCatchesNobodyMakesTheNextGoWithoutOneAndOneThatCatchesStartsOver() {
		batch(4, 0);
		assertThat(this.linger.boundNanos(queued(1))).isPositive();
		// It caught no one: its batch is the leader's alone.
		batch(1, 3);
		assertThat(this.linger.boundNanos(queued(1))).as("skipped").isZero();
		batch(1, 3);
		assertThat(this.linger.boundNanos(queued(1))).isPositive();
		// This one catches one: the next lingers again.
		batch(2, 3);
		assertThat(this.linger.boundNanos(queued(1))).isPositive();
	}

	@Test
	void aCallOfManyRequestsIsExpectedBackAsOneCaller() {
		// One call of 10 items, then the same thread's next call of one.
		batch(10, 1, 0);
		assertThat(this.linger.boundNanos(queued(1))).isZero();
	}

	@Test
	void aCallLongerThanTheBatchBoundIsNotWaitedForBetweenItsBatches() {
		// The first 1,000 of a call of 1,500: it finished no call, its 500 remain.
		batch(1_000, 0, 500);
		assertThat(this.linger.boundNanos(queued(500))).isZero();
	}

	@Test
	void aLoneCallerOfAGroupIsNeverWaitedForWhateverItsCallsHold() {
		List<Long> bounds = new CopyOnWriteArrayList<>();
		CallGroup.Linger<Object> asked = new CallGroup.Linger<>() {

			@Override
			public long boundNanos(List<?> queued) {
				long bound = CallerLingerTests.this.linger.boundNanos(queued);
				bounds.add(bound);
				return bound;
			}

			@Override
			public boolean expectsMore(List<?> queued) {
				return CallerLingerTests.this.linger.expectsMore(queued);
			}

			@Override
			public void writing(int requests) {
				CallerLingerTests.this.linger.writing(requests);
			}

			@Override
			public void written(int finishedCalls, List<?> queued) {
				// Every batch takes a whole round trip on the linger's clock.
				CallerLingerTests.this.clock.step(ROUND_TRIP);
				CallerLingerTests.this.linger.written(finishedCalls, queued);
			}

		};
		CallGroup<String, String> group = new CallGroup<>(4, new CallGroupTests.FakeStore(), asked);
		assertThat(group.call("a")).isEqualTo("A");
		assertThat(group.callAll(List.of("b", "c", "d", "e", "f", "g"))).hasSize(6);
		assertThat(group.call("h")).isEqualTo("H");
		assertThat(group.callAll(List.of("i", "j"))).hasSize(2);
		assertThat(group.call("k")).isEqualTo("K");
		// Asked before each batch but the one that was full already.
		assertThat(bounds).hasSize(5).containsOnly(0L);
	}

	@Test
	void aBatchWrittenWithoutALingerIsNotJudged() {
		batch(4, 0);
		// A leader that found all expected queued: no linger, nothing to judge.
		assertThat(this.linger.boundNanos(queued(4))).isZero();
		batch(4, 0);
		assertThat(this.linger.boundNanos(queued(1))).isPositive();
	}

	/**
	 * A batch of {@code requests} calls of one request each, written in a round trip,
	 * {@code queued} queued meanwhile.
	 */
	private void batch(int requests, int queued) {
		batch(requests, requests, queued);
	}

	/**
	 * A batch of {@code requests} that finished {@code calls} calls, written in a round
	 * trip, {@code queued} queued by then.
	 */
	private void batch(int requests, int calls, int queued) {
		this.linger.writing(requests);
		this.clock.step(ROUND_TRIP);
		this.linger.written(calls, queued(queued));
	}

	private static List<Object> queued(int size) {
		return Collections.nCopies(size, "item");
	}

}
