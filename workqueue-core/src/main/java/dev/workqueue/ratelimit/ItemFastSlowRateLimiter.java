package dev.workqueue.ratelimit;

import java.time.Duration;

/**
 * A {@link RateLimiter} that retries an item quickly a few times, then slowly, as
 * client-go's {@code ItemFastSlowRateLimiter}: {@link #when} returns {@code fastDelay}
 * for an item's first {@code maxFastAttempts} calls and {@code slowDelay} after that,
 * until the item is {@linkplain #forget forgotten}.
 * <p>
 * Thread-safe and, with the default in-memory {@link FailureCounts}, lock-free: a call
 * costs one map lookup and one compare-and-set. Every item that failed keeps one small
 * entry until it is forgotten.
 *
 * @param <T> the item type
 */
public final class ItemFastSlowRateLimiter<T> extends FailureCountingRateLimiter<T> {

	private final Duration fastDelay;

	private final Duration slowDelay;

	private final int maxFastAttempts;

	/**
	 * Creates a limiter that waits {@code fastDelay} for the first
	 * {@code maxFastAttempts} attempts of an item, then {@code slowDelay}.
	 * @param fastDelay the delay of the first attempts, zero or positive
	 * @param slowDelay the delay of later attempts, zero or positive
	 * @param maxFastAttempts how many attempts are fast, zero or positive
	 * @throws IllegalArgumentException if a delay or {@code maxFastAttempts} is negative
	 */
	public ItemFastSlowRateLimiter(Duration fastDelay, Duration slowDelay, int maxFastAttempts) {
		this(fastDelay, slowDelay, maxFastAttempts, FailureCounts.inMemory());
	}

	/**
	 * Creates a limiter that waits {@code fastDelay} for the first
	 * {@code maxFastAttempts} attempts of an item, then {@code slowDelay}, with the
	 * failure counts kept in {@code counts} (shared by several processes, for example).
	 * @param fastDelay the delay of the first attempts, zero or positive
	 * @param slowDelay the delay of later attempts, zero or positive
	 * @param maxFastAttempts how many attempts are fast, zero or positive
	 * @param counts where the failures are counted
	 * @throws IllegalArgumentException if a delay or {@code maxFastAttempts} is negative
	 */
	public ItemFastSlowRateLimiter(Duration fastDelay, Duration slowDelay, int maxFastAttempts,
			FailureCounts<T> counts) {
		super(counts);
		this.fastDelay = Preconditions.requireNonNegative(fastDelay, "fastDelay");
		this.slowDelay = Preconditions.requireNonNegative(slowDelay, "slowDelay");
		this.maxFastAttempts = Preconditions.requireNonNegative(maxFastAttempts, "maxFastAttempts");
	}

	@Override
	public Duration when(T item) {
		return (countFailure(item) < this.maxFastAttempts) ? this.fastDelay : this.slowDelay;
	}

	@Override
	public String toString() {
		return "ItemFastSlowRateLimiter[fastDelay=" + this.fastDelay + ", slowDelay=" + this.slowDelay
				+ ", maxFastAttempts=" + this.maxFastAttempts + countsSuffix() + "]";
	}

}
