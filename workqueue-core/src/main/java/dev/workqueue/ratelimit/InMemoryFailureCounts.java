package dev.workqueue.ratelimit;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * {@link FailureCounts#inMemory()}: a {@link ConcurrentHashMap} from item to an
 * {@link AtomicInteger}. Counting a failure of a known item costs one map lookup and one
 * compare-and-set, and allocates nothing; only an item's first failure adds an entry.
 * Looking up an unknown item never adds one, and {@link #forget} removes it, so the map
 * holds exactly the items failing right now.
 * <p>
 * A {@link #countFailure} racing with a {@link #forget} of the same item may count on the
 * entry just removed; that reads as the failure having come before the forget.
 *
 * @param <T> the item type
 */
final class InMemoryFailureCounts<T> implements FailureCounts<T> {

	private static final Function<Object, AtomicInteger> NEW_COUNT = (item) -> new AtomicInteger();

	/** Stops at {@link Integer#MAX_VALUE} instead of wrapping to a negative count. */
	private static final IntUnaryOperator SATURATING_INCREMENT = (n) -> (n != Integer.MAX_VALUE) ? n + 1 : n;

	private final ConcurrentHashMap<T, AtomicInteger> counts = new ConcurrentHashMap<>();

	@Override
	public int countFailure(T item) {
		Objects.requireNonNull(item, "item");
		AtomicInteger count = this.counts.get(item);
		if (count == null) {
			count = this.counts.computeIfAbsent(item, NEW_COUNT);
		}
		return count.getAndUpdate(SATURATING_INCREMENT);
	}

	@Override
	public int failures(T item) {
		Objects.requireNonNull(item, "item");
		AtomicInteger count = this.counts.get(item);
		return (count != null) ? count.get() : 0;
	}

	@Override
	public void forget(T item) {
		Objects.requireNonNull(item, "item");
		this.counts.remove(item);
	}

	/** Returns how many items have a count; for tests. */
	int trackedItems() {
		return this.counts.size();
	}

	@Override
	public String toString() {
		return "FailureCounts.inMemory()";
	}

}
