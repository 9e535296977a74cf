package dev.workqueue.ratelimit;

import java.util.Objects;

/**
 * The base of the limiters that count each item's failures (exponential, fast-slow): they
 * keep the counts in a {@link FailureCounts} store (in this JVM unless given another) and
 * turn a count into a delay in {@link #when}.
 *
 * @param <T> the item type
 */
abstract class FailureCountingRateLimiter<T> implements RateLimiter<T> {

	private final FailureCounts<T> counts;

	FailureCountingRateLimiter(FailureCounts<T> counts) {
		this.counts = Objects.requireNonNull(counts, "counts");
	}

	/**
	 * Counts one more failure of {@code item}.
	 * @param item the item
	 * @return how many failures the item had before this one
	 * @throws NullPointerException if {@code item} is {@code null}
	 */
	final int countFailure(T item) {
		return this.counts.countFailure(Objects.requireNonNull(item, "item"));
	}

	@Override
	public final void forget(T item) {
		this.counts.forget(Objects.requireNonNull(item, "item"));
	}

	@Override
	public final int numRequeues(T item) {
		return this.counts.failures(Objects.requireNonNull(item, "item"));
	}

	/** Returns how many items this limiter holds state for, in memory; for tests. */
	final int trackedItems() {
		return (this.counts instanceof InMemoryFailureCounts<T> inMemory) ? inMemory.trackedItems() : -1;
	}

	/** Names the store in {@code toString}, unless it is the default in-memory one. */
	final String countsSuffix() {
		return (this.counts instanceof InMemoryFailureCounts) ? "" : ", counts=" + this.counts;
	}

}
