package dev.workqueue.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The linger of a claim's leader: its bound, when there is none, and how it backs off
 * where it catches no one. Times are given, not read.
 */
class ClaimLingerTests {

	private static final long MS = 1_000_000;

	private static final long FOREVER = Long.MAX_VALUE;

	private final ClaimLinger linger = new ClaimLinger();

	@Test
	void aLeaderLingersHalfARoundTripAfterAFullClaimForTheConsumersItHanded() {
		// A full claim of 8 for 5 asks (3 for waiting consumers): 5 are out.
		this.linger.answered(0, MS, 8, 8, 5);
		assertThat(this.linger.expectsMore()).isTrue();
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isEqualTo(MS / 2);
		// Later after the answer, less is left.
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS + MS / 4)).isEqualTo(MS / 4);
	}

	@Test
	void noLingerAfterAShortClaim() {
		this.linger.answered(0, MS, 8, 7, 8);
		assertThat(this.linger.expectsMore()).isFalse();
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isZero();
	}

	@Test
	void noLingerWhenNoQueuedAskWantsAnItemOrTheLeaderHasNoTimeLeftOrOnShutdown() {
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(false, FOREVER, false, MS)).isZero();
		assertThat(this.linger.boundNanos(true, 0, false, MS)).isZero();
		assertThat(this.linger.boundNanos(true, FOREVER, true, MS)).isZero();
		// None of them was a linger: none is judged.
		this.linger.judge();
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isEqualTo(MS / 2);
	}

	@Test
	void theLeadersRemainingTimeoutCapsTheLinger() {
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(true, MS / 10, false, MS)).isEqualTo(MS / 10);
	}

	@Test
	void theBoundIsClampedToAMillisecondWhateverTheTimesRead() {
		// A round trip of 10 s (a clock stepped while the claim was in flight, say).
		this.linger.answered(0, 10_000 * MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(true, FOREVER, false, 10_000 * MS)).isEqualTo(LingerPace.MAX_NANOS);
		// Now read before the answer: never more than the clamp either.
		assertThat(this.linger.boundNanos(true, FOREVER, false, 0)).isEqualTo(LingerPace.MAX_NANOS);
		// An answer before its send: no negative round trip, no linger.
		ClaimLinger backwards = new ClaimLinger();
		backwards.answered(MS, 0, 4, 4, 4);
		assertThat(backwards.boundNanos(true, FOREVER, false, 0)).isZero();
	}

	@Test
	void consumersComingBackEndTheLinger() {
		this.linger.answered(0, MS, 2, 2, 2);
		this.linger.back();
		assertThat(this.linger.expectsMore()).isTrue();
		this.linger.back();
		assertThat(this.linger.expectsMore()).isFalse();
		// Never below none.
		this.linger.back();
		this.linger.answered(0, MS, 1, 1, 1);
		assertThat(this.linger.expectsMore()).isTrue();
	}

	@Test
	void aLingerThatCatchesNoOneSwitchesLingeringOffForMoreFullClaimsEachTimeUpToTheCap() {
		int skipped = 1;
		for (int round = 0; round < 10; round++) {
			lingerCatching(false);
			skip(skipped);
			skipped = Math.min(2 * skipped, LingerPace.MAX_BACKOFF);
		}
		// After a cap's worth of claims it tries again.
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isPositive();
	}

	@Test
	void aLingerThatCatchesOneStartsTheBackOffOver() {
		lingerCatching(false);
		skip(1);
		lingerCatching(false);
		skip(2);
		lingerCatching(false);
		skip(4);
		lingerCatching(true);
		// Every full claim lingers again, and one catching no one skips one claim only.
		lingerCatching(true);
		lingerCatching(false);
		skip(1);
		lingerCatching(true);
	}

	/** Full claims after which no leader lingers. */
	private void skip(int claims) {
		for (int n = 0; n < claims; n++) {
			this.linger.answered(0, MS, 4, 4, 4);
			assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isZero();
			this.linger.judge();
		}
	}

	@Test
	void shortClaimsAndLooksWithoutAnItemDoNotCountAsSkipped() {
		lingerCatching(false);
		this.linger.answered(0, MS, 4, 3, 4);
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isZero();
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(false, FOREVER, false, MS)).isZero();
		// The full claim that wants an item is the one skipped.
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isZero();
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isPositive();
	}

	/** A full claim, then a linger after it that catches a consumer or none. */
	private void lingerCatching(boolean caught) {
		this.linger.answered(0, MS, 4, 4, 4);
		assertThat(this.linger.boundNanos(true, FOREVER, false, MS)).isPositive();
		if (caught) {
			this.linger.back();
		}
		this.linger.judge();
	}

}
