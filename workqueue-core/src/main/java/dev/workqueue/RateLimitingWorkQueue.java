package dev.workqueue;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * The {@link RateLimitingQueue}: a {@link DelayingQueue} whose {@code addRateLimited}
 * delays by what a {@link RateLimiter} says, as client-go's {@code rateLimitingType}.
 * Holds no state of its own; thread-safe as its parts are. {@link PriorityWorkQueue} adds
 * the priorities.
 *
 * @param <T> the item type
 * @param <Q> the type of the wrapped queue
 */
sealed class RateLimitingWorkQueue<T, Q extends DelayingQueue<T>> extends ForwardingWorkQueue<T, Q>
		implements RateLimitingQueue<T> permits PriorityWorkQueue {

	final RateLimiter<? super T> rateLimiter;

	RateLimitingWorkQueue(Q queue, RateLimiter<? super T> rateLimiter) {
		super(queue);
		this.rateLimiter = rateLimiter;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Ignored after shutdown without asking the rate limiter, so that an ignored add does
	 * not count as a requeue.
	 */
	@Override
	public void addRateLimited(T item) {
		Objects.requireNonNull(item, "item");
		if (!this.queue.isShuttingDown()) {
			this.queue.addAfter(item, this.rateLimiter.when(item));
		}
	}

	@Override
	public void forget(T item) {
		this.rateLimiter.forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public int numRequeues(T item) {
		return this.rateLimiter.numRequeues(Objects.requireNonNull(item, "item"));
	}

	@Override
	public void addAfter(T item, Duration delay) {
		this.queue.addAfter(item, delay);
	}

	@Override
	public String toString() {
		return "RateLimitingQueue[" + this.queue + ", limited by " + this.rateLimiter + "]";
	}

}
