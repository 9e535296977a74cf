package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;

import dev.workqueue.time.Clock;

/**
 * A {@link RateLimiter} that paces all items together through one {@link TokenBucket}, as
 * client-go's {@code BucketRateLimiter}: {@link #when} reserves a token and returns how
 * long until it may be used, whatever the item. It limits the overall retry rate, not any
 * one item's; {@link #numRequeues} is always 0 and {@link #forget} does nothing.
 * <p>
 * Thread-safe; each call takes the bucket's lock once. With a burst of 0 at a finite rate
 * no token can ever be granted and {@link #when} returns
 * {@code ChronoUnit.FOREVER.getDuration()}.
 *
 * @param <T> the item type
 */
public final class BucketRateLimiter<T> implements RateLimiter<T> {

	private final double qps;

	private final int burst;

	private final TokenBucket bucket;

	/**
	 * Creates a limiter of {@code qps} items per second with bursts of {@code burst}, on
	 * the system clock.
	 * @param qps tokens added per second: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst the bucket's capacity, zero or positive
	 * @throws IllegalArgumentException if {@code qps} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public BucketRateLimiter(double qps, int burst) {
		this(qps, burst, Clock.system());
	}

	/**
	 * Creates a limiter of {@code qps} items per second with bursts of {@code burst}, on
	 * {@code clock}.
	 * @param qps tokens added per second: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst the bucket's capacity, zero or positive
	 * @param clock the clock that refills the bucket
	 * @throws IllegalArgumentException if {@code qps} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public BucketRateLimiter(double qps, int burst, Clock clock) {
		this.qps = Preconditions.requireRate(qps, "qps");
		this.burst = Preconditions.requireNonNegative(burst, "burst");
		this.bucket = new TokenBucket(qps, burst, Objects.requireNonNull(clock, "clock"));
	}

	@Override
	public Duration when(T item) {
		Objects.requireNonNull(item, "item");
		return this.bucket.reserveDelay();
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		return 0;
	}

	@Override
	public String toString() {
		return "BucketRateLimiter[qps=" + this.qps + ", burst=" + this.burst + "]";
	}

}
