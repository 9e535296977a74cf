package dev.workqueue.ratelimit;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * The base of the limiters that count each item's failures (exponential, fast-slow): the
 * counts, {@link #forget} and {@link #numRequeues}; subclasses turn a count into a delay
 * in {@link #when}.
 * <p>
 * Thread-safe without a lock of its own: a {@link ConcurrentHashMap} from item to an
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
abstract class FailureCountingRateLimiter<T> implements RateLimiter<T> {

	private static final Function<Object, AtomicInteger> NEW_COUNT = (item) -> new AtomicInteger();

	/** Stops at {@link Integer#MAX_VALUE} instead of wrapping to a negative count. */
	private static final IntUnaryOperator SATURATING_INCREMENT = (n) -> (n != Integer.MAX_VALUE) ? n + 1 : n;

	private final ConcurrentHashMap<T, AtomicInteger> counts = new ConcurrentHashMap<>();

	/**
	 * Counts one more failure of {@code item}.
	 * @param item the item
	 * @return how many failures the item had before this one
	 * @throws NullPointerException if {@code item} is {@code null}
	 */
	final int countFailure(T item) {
		Objects.requireNonNull(item, "item");
		AtomicInteger count = this.counts.get(item);
		if (count == null) {
			count = this.counts.computeIfAbsent(item, NEW_COUNT);
		}
		return count.getAndUpdate(SATURATING_INCREMENT);
	}

	@Override
	public final void forget(T item) {
		Objects.requireNonNull(item, "item");
		this.counts.remove(item);
	}

	@Override
	public final int numRequeues(T item) {
		Objects.requireNonNull(item, "item");
		AtomicInteger count = this.counts.get(item);
		return (count != null) ? count.get() : 0;
	}

	/** Returns how many items this limiter holds state for; for tests. */
	final int trackedItems() {
		return this.counts.size();
	}

}
