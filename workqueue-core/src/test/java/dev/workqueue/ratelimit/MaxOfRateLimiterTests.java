package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MaxOfRateLimiterTests {

	@Test
	void whenIsTheLongestOfAllLimitersAndNumRequeuesTheLargest() {
		RateLimiter<String> limiter = new MaxOfRateLimiter<>(
				new ItemFastSlowRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(3), 3),
				new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1), Duration.ofSeconds(1)));
		assertThat(whens(limiter, "one", 5)).containsExactly(Duration.ofMillis(5), Duration.ofMillis(5),
				Duration.ofMillis(5), Duration.ofSeconds(3), Duration.ofSeconds(3));
		assertThat(limiter.numRequeues("one")).isEqualTo(5);
		assertThat(whens(limiter, "two", 2)).containsExactly(Duration.ofMillis(5), Duration.ofMillis(5));
		assertThat(limiter.numRequeues("two")).isEqualTo(2);
		limiter.forget("one");
		assertThat(limiter.numRequeues("one")).isZero();
		assertThat(limiter.when("one")).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void everyLimiterCountsEachWhenEvenWhenAnotherIsLonger() {
		ItemExponentialFailureRateLimiter<String> shortOne = new ItemExponentialFailureRateLimiter<>(
				Duration.ofMillis(1), Duration.ofSeconds(1));
		ItemFastSlowRateLimiter<String> longOne = new ItemFastSlowRateLimiter<>(Duration.ofHours(1),
				Duration.ofHours(2), 1);
		RateLimiter<String> limiter = new MaxOfRateLimiter<>(longOne, shortOne);
		whens(limiter, "x", 3);
		assertThat(shortOne.numRequeues("x")).isEqualTo(3);
		assertThat(longOne.numRequeues("x")).isEqualTo(3);
		limiter.forget("x");
		assertThat(shortOne.trackedItems()).isZero();
		assertThat(longOne.trackedItems()).isZero();
	}

	@Test
	void acceptsLimitersOfASuperType() {
		RateLimiter<Object> anything = new ItemExponentialFailureRateLimiter<>(Duration.ofMillis(1),
				Duration.ofSeconds(1));
		RateLimiter<String> limiter = new MaxOfRateLimiter<String>(anything);
		assertThat(limiter.when("x")).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void withMaxWaitCapsTheWrappedDelay() {
		RateLimiter<Integer> limiter = new WithMaxWaitRateLimiter<>(
				new ItemFastSlowRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1000), 2),
				Duration.ofSeconds(500));
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			delays.add(limiter.when(1));
		}
		assertThat(delays).containsExactly(Duration.ofMillis(5), Duration.ofMillis(5), Duration.ofSeconds(500),
				Duration.ofSeconds(500));
	}

	@Test
	void withMaxWaitCapsASharedBucketAcrossItems() {
		FakeClock clock = new FakeClock();
		RateLimiter<Integer> limiter = new WithMaxWaitRateLimiter<>(new BucketRateLimiter<>(1, 100, clock),
				Duration.ofSeconds(50));
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.when(i)).isZero();
		}
		for (int i = 100; i < 200; i++) {
			Duration uncapped = Duration.ofSeconds(i - 99);
			assertThat(limiter.when(i))
				.isEqualTo(uncapped.compareTo(Duration.ofSeconds(50)) < 0 ? uncapped : Duration.ofSeconds(50));
		}
	}

	@Test
	void withMaxWaitPassesNumRequeuesAndForgetThrough() {
		ItemExponentialFailureRateLimiter<String> wrapped = new ItemExponentialFailureRateLimiter<>(
				Duration.ofMillis(1), Duration.ofSeconds(1));
		RateLimiter<String> limiter = new WithMaxWaitRateLimiter<>(wrapped, Duration.ofMillis(2));
		whens(limiter, "x", 4);
		assertThat(limiter.numRequeues("x")).isEqualTo(4);
		limiter.forget("x");
		assertThat(wrapped.trackedItems()).isZero();
		assertThat(limiter.numRequeues("x")).isZero();
	}

	private static List<Duration> whens(RateLimiter<String> limiter, String item, int count) {
		List<Duration> delays = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			delays.add(limiter.when(item));
		}
		return delays;
	}

}
