package dev.workqueue.ratelimit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * Per-item failure counts for the failure-counting limiters (exponential, fast-slow).
 * <p>
 * Thread-safe without a lock of its own: a {@link ConcurrentHashMap} from item to an
 * {@link AtomicInteger}. Counting a failure of a known item costs one map lookup and one
 * compare-and-set, and allocates nothing; only an item's first failure adds an entry.
 * Looking up an unknown item never adds one, and {@link #forget} removes it, so the map
 * holds exactly the items failing right now.
 * <p>
 * A {@link #increment} racing with a {@link #forget} of the same item may count on the
 * entry just removed; that reads as the failure having come before the forget.
 *
 * @param <T> the item type
 */
final class FailureCounts<T> {

	private static final Function<Object, AtomicInteger> NEW_COUNT = (item) -> new AtomicInteger();

	/** Stops at {@link Integer#MAX_VALUE} instead of wrapping to a negative count. */
	private static final IntUnaryOperator SATURATING_INCREMENT = (n) -> (n != Integer.MAX_VALUE) ? n + 1 : n;

	private final ConcurrentHashMap<T, AtomicInteger> counts = new ConcurrentHashMap<>();

	/**
	 * Counts one more failure of {@code item}.
	 * @param item the item
	 * @return how many failures the item had before this one
	 */
	int increment(T item) {
		AtomicInteger count = this.counts.get(item);
		if (count == null) {
			count = this.counts.computeIfAbsent(item, NEW_COUNT);
		}
		return count.getAndUpdate(SATURATING_INCREMENT);
	}

	int get(T item) {
		AtomicInteger count = this.counts.get(item);
		return (count != null) ? count.get() : 0;
	}

	void forget(T item) {
		this.counts.remove(item);
	}

	/** Returns how many items have an entry; for tests. */
	int size() {
		return this.counts.size();
	}

}
