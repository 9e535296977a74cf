package dev.workqueue;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * A {@link DelayingQueue} that delays re-adds by what a {@link RateLimiter} says, as
 * client-go's {@code RateLimitingInterface}. The usual worker loop: on success
 * {@link #forget} the item (resetting its backoff), on failure {@link #addRateLimited}
 * it; then {@link #done} in either case.
 *
 * @param <T> the item type
 */
public interface RateLimitingQueue<T> extends DelayingQueue<T> {

	/**
	 * Adds {@code item} after the delay the rate limiter gives for it:
	 * {@code addAfter(item, rateLimiter.when(item))}.
	 * @param item the item, not {@code null}
	 */
	void addRateLimited(T item);

	/**
	 * Tells the rate limiter to forget {@code item}'s history; the queue itself is
	 * unchanged.
	 * @param item the item, not {@code null}
	 */
	void forget(T item);

	/**
	 * Returns how many times the rate limiter has counted {@code item} as requeued.
	 * @param item the item, not {@code null}
	 * @return the number of requeues
	 */
	int numRequeues(T item);

}
