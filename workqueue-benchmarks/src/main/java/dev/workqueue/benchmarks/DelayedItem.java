package dev.workqueue.benchmarks;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * The minimal {@link Delayed} wrapper a user of {@link java.util.concurrent.DelayQueue}
 * writes: the item and its due time on {@link System#nanoTime()}, 24 bytes with
 * compressed oops.
 *
 * @param <T> the item type
 */
final class DelayedItem<T> implements Delayed {

	final T item;

	final long dueNanos;

	DelayedItem(T item, long dueNanos) {
		this.item = item;
		this.dueNanos = dueNanos;
	}

	/**
	 * Returns a wrapper of {@code item} due {@code delayNanos} from now.
	 * @param <T> the item type
	 * @param item the item
	 * @param delayNanos the delay
	 * @return the wrapper
	 */
	static <T> DelayedItem<T> in(T item, long delayNanos) {
		return new DelayedItem<>(item, System.nanoTime() + delayNanos);
	}

	@Override
	public long getDelay(TimeUnit unit) {
		return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
	}

	@Override
	public int compareTo(Delayed other) {
		return Long.compare(this.dueNanos, ((DelayedItem<?>) other).dueNanos);
	}

}
