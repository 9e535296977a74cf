package dev.workqueue.store;

import java.time.Duration;
import java.util.Collections;
import java.util.List;

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
	void aBatchWrittenWithoutALingerIsNotJudged() {
		batch(4, 0);
		// A leader that found all expected queued: no linger, nothing to judge.
		assertThat(this.linger.boundNanos(queued(4))).isZero();
		batch(4, 0);
		assertThat(this.linger.boundNanos(queued(1))).isPositive();
	}

	/**
	 * A batch of {@code requests} written in a round trip, {@code queued} queued
	 * meanwhile.
	 */
	private void batch(int requests, int queued) {
		this.linger.writing(requests);
		this.clock.step(ROUND_TRIP);
		this.linger.written(requests, queued(queued));
	}

	private static List<Object> queued(int size) {
		return Collections.nCopies(size, "item");
	}

}
