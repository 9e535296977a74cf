package dev.workqueue.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * A {@link RateLimiter} that retries an item quickly a few times, then slowly, as
 * client-go's {@code ItemFastSlowRateLimiter}: {@link #when} returns {@code fastDelay}
 * for an item's first {@code maxFastAttempts} calls and {@code slowDelay} after that,
 * until the item is {@linkplain #forget forgotten}.
 * <p>
 * Thread-safe and lock-free: a call costs one map lookup and one compare-and-set. Every
 * item that failed keeps one small entry until it is forgotten.
 *
 * @param <T> the item type
 */
public final class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {

	private final Duration fastDelay;

	private final Duration slowDelay;

	private final int maxFastAttempts;

	private final FailureCounts<T> failures = new FailureCounts<>();

	/**
	 * Creates a limiter that waits {@code fastDelay} for the first
	 * {@code maxFastAttempts} attempts of an item, then {@code slowDelay}.
	 * @param fastDelay the delay of the first attempts, zero or positive
	 * @param slowDelay the delay of later attempts, zero or positive
	 * @param maxFastAttempts how many attempts are fast, zero or positive
	 * @throws IllegalArgumentException if a delay or {@code maxFastAttempts} is negative
	 */
	public ItemFastSlowRateLimiter(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
		this.fastDelay = Preconditions.requireNonNegative(fastDelay, "fastDelay");
		this.slowDelay = Preconditions.requireNonNegative(slowDelay, "slowDelay");
		this.maxFastAttempts = Preconditions.requireNonNegative(maxFastAttempts, "maxFastAttempts");
	}

	@Override
	public Duration when(T item) {
		Objects.requireNonNull(item, "item");
		return (this.failures.increment(item) < this.maxFastAttempts) ? this.fastDelay : this.slowDelay;
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
		this.failures.forget(item);
	}

	@Override
	public int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		return this.failures.get(item);
	}

	/** Returns how many items this limiter holds state for; for tests. */
	int trackedItems() {
		return this.failures.size();
	}

	@Override
	public String toString() {
		return "ItemFastSlowRateLimiter[fastDelay=" + this.fastDelay + ", slowDelay=" + this.slowDelay
				+ ", maxFastAttempts=" + this.maxFastAttempts + "]";
	}

}
