package dev.workqueue.spring.autoconfigure;

import java.time.Duration;

import dev.workqueue.ratelimit.BucketRateLimiter;
import dev.workqueue.ratelimit.FailureCounts;
import dev.workqueue.ratelimit.ItemBucketRateLimiter;
import dev.workqueue.ratelimit.ItemExponentialFailureRateLimiter;
import dev.workqueue.ratelimit.ItemFastSlowRateLimiter;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiterFactory;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.time.Clock;

/**
 * The memory backend's limiters: core's, each in this JVM, on the application's clock,
 * and failures counted in this JVM. Immutable; the limiters are thread-safe.
 *
 * @param clock the clock of the token buckets
 */
record LocalRateLimiters(Clock clock) implements RateLimiterFactory<Object> {

	@Override
	public RateLimiter<Object> exponential(Duration baseDelay, Duration maxDelay, double jitter) {
		return new ItemExponentialFailureRateLimiter<>(baseDelay, maxDelay, jitter);
	}

	@Override
	public RateLimiter<Object> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
		return new ItemFastSlowRateLimiter<>(fastDelay, slowDelay, maxFastAttempts);
	}

	@Override
	public RateLimiter<Object> bucket(double qps, int burst) {
		return new BucketRateLimiter<>(qps, burst, this.clock);
	}

	@Override
	public RateLimiter<Object> itemBucket(double qps, int burst) {
		return new ItemBucketRateLimiter<>(qps, burst, this.clock);
	}

	@Override
	public RateLimiter<Object> defaultControllerRateLimiter() {
		return RateLimiters.defaultControllerRateLimiter(this.clock);
	}

	@Override
	public FailureCounts<Object> attempts() {
		return FailureCounts.inMemory();
	}

}
