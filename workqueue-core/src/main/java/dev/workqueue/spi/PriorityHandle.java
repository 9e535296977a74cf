package dev.workqueue.spi;

import java.time.Duration;
import java.util.List;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityQueue.Level;
import dev.workqueue.PriorityQueue.Prioritized;

/**
 * One process's handle on a shared queue whose ready items have priorities (the Redis and
 * PostgreSQL backends'): what {@link SharedPriorityQueue} turns into a
 * {@link dev.workqueue.PriorityQueue}. Its {@link #add(Object)} and
 * {@link #addAfter(Object, Duration)} add at priority 0.
 *
 * @param <T> the item type
 */
public interface PriorityHandle<T> extends DelayingQueue<T> {

	/**
	 * Adds an item with a priority, as
	 * {@link dev.workqueue.PriorityQueue#add(Object, int)}.
	 * @param item the item
	 * @param priority the priority, checked
	 */
	void add(T item, int priority);

	/**
	 * Adds an item after a delay with a priority, as
	 * {@link dev.workqueue.PriorityQueue#addAfter(Object, Duration, int)}.
	 * @param item the item
	 * @param delay the delay
	 * @param priority the priority, checked
	 */
	void addAfter(T item, Duration delay, int priority);

	/**
	 * Takes the next item with the priority it is handed out with, as a plain get
	 * ({@code timeout} {@code null}) or poll does.
	 * @param timeout how long to wait, or {@code null} to wait until an item comes or the
	 * handle is shut down
	 * @return the item and its priority, or {@code null}
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> take(Duration timeout) throws InterruptedException;

	/**
	 * Returns the shared ready items per priority, highest first, as
	 * {@link dev.workqueue.PriorityQueue#readyLevels()}.
	 * @return the levels
	 */
	List<Level> readyLevels();

}
