package dev.workqueue.ratelimit;

import java.time.Duration;

/**
 * A maker of client-go's rate limiters for one queue, all keeping their state in one
 * place: the limiters of {@link ItemExponentialFailureRateLimiter},
 * {@link ItemFastSlowRateLimiter}, {@link BucketRateLimiter} and
 * {@link ItemBucketRateLimiter}, with the same delays, and the count of failed attempts
 * kept beside their failure history. The builders of the shared stores' limiters
 * ({@code RedisRateLimiters.Builder}, {@code PostgresRateLimiters.Builder}) implement it
 * through {@link dev.workqueue.store.SharedLimiterFactory}, their limiters sharing their
 * state with every instance through the store, so that code turning a queue's settings
 * into its limiter (the Spring starter's) is written once for every store. Combine the
 * limiters with {@link MaxOfRateLimiter} and {@link WithMaxWaitRateLimiter}, which only
 * compare and cap delays.
 * <p>
 * An implementation need not be thread-safe; the limiters and counts it makes are. This
 * interface, implemented outside core, may change before 1.0.
 *
 * @param <T> the item type
 */
public interface RateLimiterFactory<T> {

	/**
	 * A {@code baseDelay * 2^failures} limiter, capped at {@code maxDelay}.
	 * @param baseDelay the first delay, not negative
	 * @param maxDelay the cap, at least {@code baseDelay}
	 * @return the limiter
	 */
	default RateLimiter<T> exponential(Duration baseDelay, Duration maxDelay) {
		return exponential(baseDelay, maxDelay, 0);
	}

	/**
	 * A {@code baseDelay * 2^failures} limiter, capped at {@code maxDelay}, each delay
	 * then shortened by a random part of at most {@code jitter}.
	 * @param baseDelay the first delay, not negative
	 * @param maxDelay the cap, at least {@code baseDelay}
	 * @param jitter the largest part of a delay to cut at random, in {@code [0, 1]}
	 * @return the limiter
	 */
	RateLimiter<T> exponential(Duration baseDelay, Duration maxDelay, double jitter);

	/**
	 * A limiter that waits {@code fastDelay} for an item's first {@code maxFastAttempts}
	 * failures, then {@code slowDelay}.
	 * @param fastDelay the short delay, not negative
	 * @param slowDelay the long delay, not negative
	 * @param maxFastAttempts how many failures get the short delay, not negative
	 * @return the limiter
	 */
	RateLimiter<T> fastSlow(Duration fastDelay, Duration slowDelay, int maxFastAttempts);

	/**
	 * One token bucket for every item.
	 * @param qps tokens per second, positive
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	RateLimiter<T> bucket(double qps, int burst);

	/**
	 * One token bucket per item.
	 * @param qps tokens per second, positive
	 * @param burst the bucket's size, at least 1
	 * @return the limiter
	 */
	RateLimiter<T> itemBucket(double qps, int burst);

	/**
	 * client-go's default controller limiter: the longer of {@link #exponential
	 * exponential(5ms, 1000s)} and {@link #bucket bucket(10, 100)}, as
	 * {@link RateLimiters#defaultControllerRateLimiter()}.
	 * @return the limiter
	 */
	default RateLimiter<T> defaultControllerRateLimiter() {
		return new MaxOfRateLimiter<>(exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)), bucket(10, 100));
	}

	/**
	 * The count of each item's failed attempts, kept where the limiters keep their
	 * failure history: what a worker's {@code max-retries} counts.
	 * @return the store of the counts
	 */
	FailureCounts<T> attempts();

}
