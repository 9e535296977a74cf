package dev.workqueue;

import java.time.Duration;

/**
 * A {@link WorkQueue} that can also add an item after a delay, as client-go's
 * {@code DelayingInterface}.
 * <p>
 * An item waiting for its delay is held once: adding it again with a delay keeps the
 * earlier of the two ready times. A plain {@link #add} of a waiting item queues it now
 * and leaves the wait in place (it comes again when due, and is deduplicated then if
 * still queued). Waiting items are dropped on shutdown. Thread-safe; {@code addAfter}
 * never waits for another thread to make room and never drops an item.
 *
 * @param <T> the item type
 */
public interface DelayingQueue<T> extends WorkQueue<T> {

	/**
	 * Adds {@code item} once {@code delay} has passed on the queue's clock. A delay of
	 * zero or less is the same as {@link #add}. Ignored after shutdown.
	 * @param item the item, not {@code null}
	 * @param delay how long to wait, not {@code null}
	 */
	void addAfter(T item, Duration delay);

}
