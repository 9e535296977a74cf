package dev.workqueue.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.ratelimit.TokenBucket.Reservation;
import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class TokenBucketTests {

	private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

	private final FakeClock clock = new FakeClock();

	@Test
	void startsFullWithTheBurst() {
		TokenBucket bucket = new TokenBucket(1, 3, this.clock);
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void refillsAtTheRateAsTheClockSteps() {
		TokenBucket bucket = new TokenBucket(2, 1, this.clock);
		assertThat(bucket.allow()).isTrue();
		this.clock.step(ms(499));
		assertThat(bucket.allow()).isFalse();
		this.clock.step(ms(1));
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void refillStopsAtTheBurst() {
		TokenBucket bucket = new TokenBucket(10, 3, this.clock);
		bucket.allowN(3);
		this.clock.step(Duration.ofHours(1));
		assertThat(bucket.allowN(3)).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void allowNTakesAllTokensOrNone() {
		TokenBucket bucket = new TokenBucket(1, 5, this.clock);
		assertThat(bucket.allowN(3)).isTrue();
		assertThat(bucket.allowN(3)).isFalse();
		assertThat(bucket.allowN(2)).isTrue();
		assertThat(bucket.allowN(0)).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void reservationsGoIntoDebtAndWaitInTurn() {
		TokenBucket bucket = new TokenBucket(10, 2, this.clock);
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			delays.add(bucket.reserve().delay());
		}
		assertThat(delays).containsExactly(Duration.ZERO, Duration.ZERO, ms(100), ms(200), ms(300));
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void reserveNWaitsForTheWholeDeficit() {
		TokenBucket bucket = new TokenBucket(4, 4, this.clock);
		assertThat(bucket.reserveN(3).delay()).isZero();
		assertThat(bucket.reserveN(3).delay()).isEqualTo(ms(500));
		assertThat(bucket.reserveN(0).delay()).isEqualTo(ms(500));
	}

	@Test
	void delayIsReadFromTheClockAndNeverNegative() {
		TokenBucket bucket = new TokenBucket(10, 1, this.clock);
		bucket.reserve();
		Reservation second = bucket.reserve();
		Reservation third = bucket.reserve();
		this.clock.step(ms(150));
		assertThat(second.delay()).isZero();
		assertThat(third.delay()).isEqualTo(ms(50));
		this.clock.step(Duration.ofHours(1));
		assertThat(third.delay()).isZero();
		assertThat(third.ok()).isTrue();
	}

	@Test
	void waitsAreRoundedUpSoNoOneActsBeforeTheirTokenAccrued() {
		TokenBucket bucket = new TokenBucket(3, 1, this.clock);
		bucket.reserve();
		Duration delay = bucket.reserve().delay();
		assertThat(delay).isEqualTo(Duration.ofNanos(333_333_334));
		this.clock.step(delay);
		// The nanosecond rounded up is credited back: rounding never accumulates, the
		// second token comes at 2/3 s rounded up.
		assertThat(delay.plus(bucket.reserve().delay())).isEqualTo(Duration.ofNanos(666_666_667));
	}

	@Test
	void moreThanTheBurstIsRefusedAndTakesNothing() {
		TokenBucket bucket = new TokenBucket(10, 3, this.clock);
		Reservation refused = bucket.reserveN(4);
		assertThat(refused.ok()).isFalse();
		assertThat(refused.delay()).isEqualTo(FOREVER);
		refused.cancel();
		assertThat(bucket.allowN(4)).isFalse();
		assertThat(bucket.allowN(3)).isTrue();
	}

	@Test
	void infiniteRateGrantsEverythingAtOnceWhateverTheBurst() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(Double.POSITIVE_INFINITY, 0, this.clock);
		Reservation reservation = bucket.reserveN(1_000_000);
		assertThat(reservation.ok()).isTrue();
		assertThat(reservation.delay()).isZero();
		reservation.cancel();
		assertThat(bucket.allowN(Integer.MAX_VALUE)).isTrue();
		assertThat(bucket.allow()).isTrue();
		bucket.acquire();
		assertThat(bucket.tryAcquire(5, Duration.ZERO)).isTrue();
		assertThat(this.clock.hasWaiters()).isFalse();
	}

	@Test
	void zeroRateGivesTheInitialBurstThenNothing() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(0, 2, this.clock);
		assertThat(bucket.reserve().delay()).isZero();
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isFalse();
		this.clock.step(Duration.ofDays(365));
		assertThat(bucket.allow()).isFalse();
		Reservation reservation = bucket.reserve();
		assertThat(reservation.ok()).isFalse();
		assertThat(reservation.delay()).isEqualTo(FOREVER);
		assertThat(bucket.tryAcquire(1, Duration.ofDays(1))).isFalse();
		assertThatIllegalStateException().isThrownBy(bucket::acquire).withMessageContaining("rate is 0");
	}

	@Test
	void zeroRateCancelAtOnceGivesTheTokenBack() {
		TokenBucket bucket = new TokenBucket(0, 1, this.clock);
		bucket.reserve().cancel();
		assertThat(bucket.allow()).isTrue();
		assertThat(bucket.allow()).isFalse();
	}

	@Test
	void zeroBurstAtAFiniteRateGrantsNothing() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1000, 0, this.clock);
		this.clock.step(Duration.ofSeconds(10));
		assertThat(bucket.allow()).isFalse();
		assertThat(bucket.reserve().ok()).isFalse();
		assertThat(bucket.reserveN(0).ok()).isTrue();
		assertThat(bucket.tryAcquire(1, Duration.ofDays(1))).isFalse();
		assertThatIllegalStateException().isThrownBy(bucket::acquire).withMessageContaining("burst is 0");
	}

	@Test
	void cancelBeforeItsTimeGivesTheTokensBack() {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.reserve();
		bucket.reserve().cancel();
		assertThat(bucket.reserve().delay()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void cancelOfAnImmediateReservationAtOnceGivesTheTokensBack() {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.reserveN(2).cancel();
		assertThat(bucket.allowN(2)).isTrue();
	}

	@Test
	void cancelAfterItsTimeGivesNothingBack() {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.reserveN(2);
		Reservation late = bucket.reserve();
		this.clock.step(Duration.ofSeconds(2));
		late.cancel();
		// One token in debt plus two refilled: one left, not two.
		assertThat(bucket.allowN(2)).isFalse();
		assertThat(bucket.allow()).isTrue();
	}

	@Test
	void cancelExactlyAtItsTimeStillGivesTheTokensBack() {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.reserveN(2);
		Reservation due = bucket.reserve();
		this.clock.step(Duration.ofSeconds(1));
		due.cancel();
		assertThat(bucket.allow()).isTrue();
	}

	@Test
	void cancelKeepsTheTokensReservedAfterIt() {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		bucket.reserveN(2);
		Reservation cancelled = bucket.reserveN(2);
		bucket.reserve();
		cancelled.cancel();
		// Of its two tokens, one was already promised to the later reservation.
		assertThat(bucket.reserve().delay()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void cancellingTheLatestReservationMovesTheLatestEventBack() {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.reserve();
		Reservation first = bucket.reserve();
		Reservation latest = bucket.reserve();
		latest.cancel();
		first.cancel();
		// Both given back in full: the next token is one second away, as after the first
		// reservation alone.
		assertThat(bucket.reserve().delay()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void cancelIsIdempotent() {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.reserve();
		bucket.reserve();
		Reservation latest = bucket.reserve();
		latest.cancel();
		latest.cancel();
		assertThat(bucket.reserve().delay()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void tryAcquireOfMoreThanTheBurstFailsAtOnceTakingNothing() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1, 2, this.clock);
		assertThat(bucket.tryAcquire(3, Duration.ofDays(1))).isFalse();
		assertThat(bucket.allowN(2)).isTrue();
	}

	@Test
	void tryAcquireBeyondItsTimeoutFailsAtOnceTakingNothing() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		bucket.allow();
		assertThat(bucket.tryAcquire(1, ms(999))).isFalse();
		assertThat(bucket.reserve().delay()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void tryAcquireWithANegativeTimeoutTakesOnlyWhatIsThere() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		assertThat(bucket.tryAcquire(1, Duration.ofSeconds(-1))).isTrue();
		assertThat(bucket.tryAcquire(1, Duration.ofSeconds(-1))).isFalse();
		assertThat(bucket.tryAcquire(0, Duration.ofSeconds(-1))).isTrue();
	}

	@Test
	void hugeTimeoutsAreClamped() throws InterruptedException {
		TokenBucket bucket = new TokenBucket(1, 1, this.clock);
		assertThat(bucket.tryAcquire(1, FOREVER)).isTrue();
	}

	@Test
	void tinyRatesSaturateTheDelayInsteadOfOverflowing() {
		TokenBucket bucket = new TokenBucket(1e-12, 1, this.clock);
		bucket.reserve();
		Reservation far = bucket.reserve();
		assertThat(far.ok()).isTrue();
		assertThat(far.delay()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
