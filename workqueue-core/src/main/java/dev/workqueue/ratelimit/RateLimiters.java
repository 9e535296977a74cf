package dev.workqueue.ratelimit;

import java.time.Duration;

import dev.workqueue.time.Clock;

/**
 * Ready-made {@link RateLimiter}s, as client-go's {@code DefaultControllerRateLimiter}.
 */
public final class RateLimiters {

	private static final Duration DEFAULT_BASE_DELAY = Duration.ofMillis(5);

	private static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1000);

	private static final double DEFAULT_QPS = 10;

	private static final int DEFAULT_BURST = 100;

	private RateLimiters() {
	}

	/**
	 * Returns a new instance of the limiter Kubernetes controllers use by default, on the
	 * system clock. See {@link #defaultControllerRateLimiter(Clock)}.
	 * @param <T> the item type
	 * @return a new limiter
	 */
	public static <T> RateLimiter<T> defaultControllerRateLimiter() {
		return defaultControllerRateLimiter(Clock.system());
	}

	/**
	 * Returns a new instance of the limiter Kubernetes controllers use by default: the
	 * {@linkplain MaxOfRateLimiter max} of a per-item exponential backoff from 5 ms to
	 * 1000 s and an overall token bucket of 10 per second with bursts of 100. Each item
	 * backs off on its own, while retries of all items together stay near 10 per second.
	 * @param <T> the item type
	 * @param clock the clock that refills the bucket
	 * @return a new limiter
	 */
	public static <T> RateLimiter<T> defaultControllerRateLimiter(Clock clock) {
		return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<>(DEFAULT_BASE_DELAY, DEFAULT_MAX_DELAY),
				new BucketRateLimiter<>(DEFAULT_QPS, DEFAULT_BURST, clock));
	}

}
