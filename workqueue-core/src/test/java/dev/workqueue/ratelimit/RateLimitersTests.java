package dev.workqueue.ratelimit;

import java.time.Duration;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitersTests {

	private final FakeClock clock = new FakeClock();

	@Test
	void defaultControllerLimiterBacksOffPerItemFrom5ms() {
		RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(this.clock);
		assertThat(limiter.when("one")).isEqualTo(Duration.ofMillis(5));
		this.clock.step(Duration.ofSeconds(1));
		assertThat(limiter.when("one")).isEqualTo(Duration.ofMillis(10));
		this.clock.step(Duration.ofSeconds(1));
		assertThat(limiter.when("one")).isEqualTo(Duration.ofMillis(20));
		assertThat(limiter.numRequeues("one")).isEqualTo(3);
		limiter.forget("one");
		assertThat(limiter.numRequeues("one")).isZero();
		assertThat(limiter.when("one")).isEqualTo(Duration.ofMillis(5));
	}

	@Test
	void defaultControllerLimiterCapsAt1000Seconds() {
		RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(this.clock);
		Duration last = null;
		for (int i = 0; i < 40; i++) {
			// Keep the shared bucket full so only the backoff speaks.
			this.clock.step(Duration.ofSeconds(1));
			last = limiter.when("one");
		}
		assertThat(last).isEqualTo(Duration.ofSeconds(1000));
	}

	@Test
	void defaultControllerLimiterPacesAllItemsAt10PerSecondAfterABurstOf100() {
		RateLimiter<Integer> limiter = RateLimiters.defaultControllerRateLimiter(this.clock);
		for (int i = 0; i < 100; i++) {
			assertThat(limiter.when(i)).isEqualTo(Duration.ofMillis(5));
		}
		assertThat(limiter.when(100)).isEqualTo(Duration.ofMillis(100));
		assertThat(limiter.when(101)).isEqualTo(Duration.ofMillis(200));
		assertThat(limiter.numRequeues(100)).isOne();
	}

	@Test
	void defaultControllerLimiterDescribesItsParts() {
		assertThat(RateLimiters.defaultControllerRateLimiter())
			.hasToString("MaxOfRateLimiter[ItemExponentialFailureRateLimiter[baseDelay=PT0.005S, maxDelay=PT16M40S], "
					+ "BucketRateLimiter[qps=10.0, burst=100]]");
	}

	@Test
	void eachCallReturnsANewLimiter() {
		RateLimiter<String> first = RateLimiters.defaultControllerRateLimiter(this.clock);
		RateLimiter<String> second = RateLimiters.defaultControllerRateLimiter(this.clock);
		first.when("x");
		assertThat(second.numRequeues("x")).isZero();
	}

}
