package dev.workqueue.ratelimit;

/**
 * Where the failure-counting limiters ({@link ItemExponentialFailureRateLimiter},
 * {@link ItemFastSlowRateLimiter}) keep each item's count of failures: in this JVM
 * ({@link #inMemory()}, the default), or anywhere else that several processes share, such
 * as the Redis backend's store. The limiters own the arithmetic that turns a count into a
 * delay; a store only counts.
 * <p>
 * Implementations are thread-safe. A store holds state only for items that failed and
 * were not forgotten since.
 *
 * @param <T> the item type
 */
public interface FailureCounts<T> {

	/**
	 * Counts one more failure of {@code item}.
	 * @param item the item, not {@code null}
	 * @return how many failures the item had before this one
	 */
	int countFailure(T item);

	/**
	 * Returns how many failures of {@code item} are counted; looking creates no state.
	 * @param item the item, not {@code null}
	 * @return the count, 0 for an unknown item
	 */
	int failures(T item);

	/**
	 * Forgets {@code item}'s count.
	 * @param item the item, not {@code null}
	 */
	void forget(T item);

	/**
	 * Returns a new store in this JVM: lock-free, one small entry per failing item.
	 * @param <T> the item type
	 * @return a new, empty store
	 */
	static <T> FailureCounts<T> inMemory() {
		return new InMemoryFailureCounts<>();
	}

}
