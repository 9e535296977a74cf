package dev.workqueue.ratelimit;

import java.time.Duration;

/**
 * Decides how long an item waits before it is retried, as client-go's
 * {@code workqueue.TypedRateLimiter}. Implementations are thread-safe.
 *
 * @param <T> the item type
 * @see RateLimiters
 */
public interface RateLimiter<T> {

	/**
	 * Returns how long {@code item} should wait now. For the failure-counting limiters
	 * (exponential, fast-slow) each call counts one more requeue of the item.
	 * @param item the item, not {@code null}
	 * @return the delay, zero or positive
	 */
	Duration when(T item);

	/**
	 * Forgets {@code item}'s history, for example after it was processed successfully.
	 * @param item the item, not {@code null}
	 */
	void forget(T item);

	/**
	 * Returns how many requeues of {@code item} this limiter has counted; looking does
	 * not create state for an unknown item.
	 * @param item the item, not {@code null}
	 * @return the number of requeues
	 */
	int numRequeues(T item);

}
