package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * A {@link RateLimiter} that caps another's delay, as client-go's
 * {@code WithMaxWaitRateLimiter}: {@link #when} returns the smaller of the wrapped
 * limiter's delay and {@code maxWait}; {@link #numRequeues} and {@link #forget} pass
 * through unchanged.
 * <p>
 * Thread-safe if the wrapped limiter is; it holds no state of its own.
 *
 * @param <T> the item type
 */
public final class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {

	private final RateLimiter<T> limiter;

	private final Duration maxWait;

	/**
	 * Creates a limiter returning at most {@code maxWait}.
	 * @param limiter the limiter whose delays are capped
	 * @param maxWait the longest delay, zero or positive
	 * @throws IllegalArgumentException if {@code maxWait} is negative
	 */
	public WithMaxWaitRateLimiter(RateLimiter<T> limiter, Duration maxWait) {
		this.limiter = Objects.requireNonNull(limiter, "limiter");
		this.maxWait = Preconditions.requireNonNegative(maxWait, "maxWait");
	}

	@Override
	public Duration when(T item) {
		Objects.requireNonNull(item, "item");
		Duration delay = this.limiter.when(item);
		return (delay.compareTo(this.maxWait) > 0) ? this.maxWait : delay;
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
		this.limiter.forget(item);
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		return this.limiter.numRequeues(item);
	}

	@Override
	public String toString() {
		return "WithMaxWaitRateLimiter[limiter=" + this.limiter + ", maxWait=" + this.maxWait + "]";
	}

}
