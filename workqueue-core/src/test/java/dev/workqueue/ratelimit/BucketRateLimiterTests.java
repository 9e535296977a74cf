package dev.workqueue.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BucketRateLimiterTests {

	private final FakeClock clock = new FakeClock();

	@Test
	void burstIsFreeThenDelaysArePacedAtTheRate() {
		BucketRateLimiter<String> limiter = new BucketRateLimiter<>(10, 3, this.clock);
		assertThat(whens(limiter, 5)).containsExactly(Duration.ZERO, Duration.ZERO, Duration.ZERO, ms(100), ms(200));
	}

	@Test
	void stepsRefillTheBucketAndPartialStepsShortenTheDelay() {
		BucketRateLimiter<String> limiter = new BucketRateLimiter<>(10, 3, this.clock);
		whens(limiter, 5);
		this.clock.step(ms(50));
		// Two tokens in debt, half a token refilled: the next one is 2.5 tokens away.
		assertThat(limiter.when("x")).isEqualTo(ms(250));
		this.clock.step(Duration.ofHours(1));
		assertThat(whens(limiter, 4)).containsExactly(Duration.ZERO, Duration.ZERO, Duration.ZERO, ms(100));
	}

	@Test
	void oneBucketIsSharedByAllItemsAndKeepsNoPerItemState() {
		BucketRateLimiter<String> limiter = new BucketRateLimiter<>(1, 1, this.clock);
		assertThat(limiter.when("a")).isZero();
		assertThat(limiter.when("b")).isEqualTo(Duration.ofSeconds(1));
		limiter.forget("a");
		limiter.forget("b");
		assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(2));
		assertThat(limiter.numRequeues("a")).isZero();
	}

	@Test
	void infiniteQpsNeverDelays() {
		BucketRateLimiter<String> limiter = new BucketRateLimiter<>(Double.POSITIVE_INFINITY, 0, this.clock);
		assertThat(whens(limiter, 1000)).containsOnly(Duration.ZERO);
	}

	@Test
	void burstZeroAtAFiniteRateDelaysForever() {
		BucketRateLimiter<String> limiter = new BucketRateLimiter<>(10, 0, this.clock);
		assertThat(limiter.when("x")).isEqualTo(ChronoUnit.FOREVER.getDuration());
	}

	@Test
	void itemBucketsPaceEachItemOnItsOwn() {
		ItemBucketRateLimiter<String> limiter = new ItemBucketRateLimiter<>(1, 2, this.clock);
		assertThat(whens(limiter, "a", 4)).containsExactly(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1),
				Duration.ofSeconds(2));
		assertThat(whens(limiter, "b", 3)).containsExactly(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1));
		assertThat(limiter.numRequeues("a")).isZero();
		this.clock.step(Duration.ofSeconds(1));
		assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(2));
		assertThat(limiter.when("b")).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void forgetGivesTheItemAFreshBucket() {
		ItemBucketRateLimiter<String> limiter = new ItemBucketRateLimiter<>(1, 1, this.clock);
		assertThat(whens(limiter, "a", 3)).containsExactly(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(2));
		limiter.forget("a");
		assertThat(whens(limiter, "a", 2)).containsExactly(Duration.ZERO, Duration.ofSeconds(1));
	}

	@Test
	void itemBucketsExistOnlyBetweenWhenAndForget() {
		ItemBucketRateLimiter<String> limiter = new ItemBucketRateLimiter<>(1, 1, this.clock);
		assertThat(limiter.numRequeues("a")).isZero();
		limiter.forget("never-seen");
		assertThat(limiter.trackedItems()).isZero();
		limiter.when("a");
		limiter.when("b");
		assertThat(limiter.trackedItems()).isEqualTo(2);
		limiter.forget("a");
		limiter.forget("b");
		assertThat(limiter.trackedItems()).isZero();
	}

	private static List<Duration> whens(RateLimiter<String> limiter, int count) {
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			delays.add(limiter.when("item-" + i));
		}
		return delays;
	}

	private static List<Duration> whens(RateLimiter<String> limiter, String item, int count) {
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			delays.add(limiter.when(item));
		}
		return delays;
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
