package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.workqueue.time.Clock;

/**
 * A {@link RateLimiter} that paces each item through its own {@link TokenBucket}, as
 * client-go's {@code ItemBucketRateLimiter}: an item's first {@link #when} creates a full
 * bucket of {@code burst} tokens refilled at {@code qps}, and each call reserves a token
 * from it. {@link #forget} drops the item's bucket, so its next {@code when} starts with
 * a fresh, full one. {@link #numRequeues} is always 0.
 * <p>
 * Thread-safe: a {@link ConcurrentHashMap} from item to bucket, then the bucket's own
 * lock; a call costs one map lookup and one bucket reservation. Every item keeps its
 * bucket until it is forgotten, so callers {@link #forget} items they are done with.
 *
 * @param <T> the item type
 */
public final class ItemBucketRateLimiter<T> implements RateLimiter<T> {

	private final double qps;

	private final int burst;

	private final ConcurrentHashMap<T, TokenBucket> buckets = new ConcurrentHashMap<>();

	/** Built once, so that looking up a bucket allocates no capturing lambda. */
	private final Function<T, TokenBucket> newBucket;

	/**
	 * Creates a limiter giving each item {@code qps} per second with bursts of
	 * {@code burst}, on the system clock.
	 * @param qps tokens added per second to each item's bucket: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst each bucket's capacity, zero or positive
	 * @throws IllegalArgumentException if {@code qps} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public ItemBucketRateLimiter(double qps, int burst) {
		this(qps, burst, Clock.system());
	}

	/**
	 * Creates a limiter giving each item {@code qps} per second with bursts of
	 * {@code burst}, on {@code clock}.
	 * @param qps tokens added per second to each item's bucket: zero, positive or
	 * {@link Double#POSITIVE_INFINITY} for no limit
	 * @param burst each bucket's capacity, zero or positive
	 * @param clock the clock that refills the buckets
	 * @throws IllegalArgumentException if {@code qps} is negative or NaN, or
	 * {@code burst} is negative
	 */
	public ItemBucketRateLimiter(double qps, int burst, Clock clock) {
		this.qps = Preconditions.requireRate(qps, "qps");
		this.burst = Preconditions.requireNonNegative(burst, "burst");
		Objects.requireNonNull(clock, "clock");
		this.newBucket = (item) -> new TokenBucket(qps, burst, clock);
	}

	@Override
	public Duration when(T item) {
		Objects.requireNonNull(item, "item");
		TokenBucket bucket = this.buckets.get(item);
		if (bucket == null) {
			bucket = this.buckets.computeIfAbsent(item, this.newBucket);
		}
		// A forget racing with this call may drop the bucket first; the reservation
		// then reads as made before the forget.
		return bucket.reserveDelay();
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
		this.buckets.remove(item);
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		return 0;
	}

	/** Returns how many items have a bucket; for tests. */
	int trackedItems() {
		return this.buckets.size();
	}

	@Override
	public String toString() {
		return "ItemBucketRateLimiter[qps=" + this.qps + ", burst=" + this.burst + "]";
	}

}
