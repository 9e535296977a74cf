package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.stream.Stream;

import dev.workqueue.time.FakeClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimiterToStringTests {

	private static final FakeClock CLOCK = new FakeClock();

	static Stream<Arguments> descriptions() {
		ItemExponentialFailureRateLimiter<String> exponential = new ItemExponentialFailureRateLimiter<>(
				Duration.ofMillis(5), Duration.ofSeconds(1000));
		BucketRateLimiter<String> bucket = new BucketRateLimiter<>(10, 100, CLOCK);
		return Stream.of(
				Arguments.of(exponential, "ItemExponentialFailureRateLimiter[baseDelay=PT0.005S, maxDelay=PT16M40S]"),
				Arguments.of(new ItemFastSlowRateLimiter<>(Duration.ofMillis(10), Duration.ofSeconds(10), 3),
						"ItemFastSlowRateLimiter[fastDelay=PT0.01S, slowDelay=PT10S, maxFastAttempts=3]"),
				Arguments.of(bucket, "BucketRateLimiter[qps=10.0, burst=100]"),
				Arguments.of(new ItemBucketRateLimiter<>(Double.POSITIVE_INFINITY, 1, CLOCK),
						"ItemBucketRateLimiter[qps=Infinity, burst=1]"),
				Arguments.of(new MaxOfRateLimiter<>(exponential, bucket),
						"MaxOfRateLimiter[ItemExponentialFailureRateLimiter[baseDelay=PT0.005S, maxDelay=PT16M40S], "
								+ "BucketRateLimiter[qps=10.0, burst=100]]"),
				Arguments.of(new WithMaxWaitRateLimiter<>(bucket, Duration.ofHours(1)),
						"WithMaxWaitRateLimiter[limiter=BucketRateLimiter[qps=10.0, burst=100], maxWait=PT1H]"),
				Arguments.of(new TokenBucket(0.5, 2, CLOCK), "TokenBucket[ratePerSecond=0.5, burst=2]"));
	}

	@ParameterizedTest(name = "{1}")
	@MethodSource("descriptions")
	void toStringNamesTheTypeAndItsSettings(Object limiter, String expected) {
		assertThat(limiter).hasToString(expected);
	}

}
