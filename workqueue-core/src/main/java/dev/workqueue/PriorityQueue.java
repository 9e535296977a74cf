package dev.workqueue;

import java.time.Duration;
import java.util.List;

/**
 * A rate-limiting queue that hands out the highest priority first, as
 * controller-runtime's {@code priorityqueue}, with client-go's dedup rules kept. On top
 * of {@link WorkQueue}'s rules:
 * <ul>
 * <li>Ready items are handed out highest priority first; among equal priorities, in the
 * order in which they became ready.</li>
 * <li>One entry per item. An item that is ready and added again with a higher priority
 * takes that priority and lines up at the back of its new level; with an equal or lower
 * priority nothing changes.</li>
 * <li>A waiting (delayed) item keeps the highest priority and the earliest ready time of
 * all its adds; an add without delay makes it ready at once. A delayed item that becomes
 * ready lines up at that moment, by its priority.</li>
 * <li>An item added while it is being processed is dirty with the highest priority of
 * those adds; {@code done} puts it back with that priority.</li>
 * <li>With a starvation timeout, an item ready for longer than the timeout is handed out
 * before every item ready for less, whatever the priorities; such starving items go in
 * the order in which they became ready. Without one, priority is strict.</li>
 * <li>{@link #size()} counts every ready item, whatever its priority.</li>
 * </ul>
 * {@code add(item)}, {@code addAfter(item, delay)} and {@code addRateLimited(item)} use
 * priority 0; {@code get} and {@code poll} hand out the item of
 * {@link #getWithPriority()} and {@link #pollWithPriority(Duration)}.
 *
 * @param <T> the item type
 * @see WorkQueues.Builder#buildPriorityQueue
 */
public interface PriorityQueue<T> extends RateLimitingQueue<T> {

	/** The lowest priority accepted. */
	int MIN_PRIORITY = -1_000_000;

	/** The highest priority accepted. */
	int MAX_PRIORITY = 1_000_000;

	/**
	 * Adds an item with a priority, by the rules above.
	 * @param item the item, not {@code null}
	 * @param priority from {@link #MIN_PRIORITY} to {@link #MAX_PRIORITY}
	 * @throws IllegalArgumentException if {@code priority} is out of range
	 */
	void add(T item, int priority);

	/**
	 * Adds an item with a priority once {@code delay} has passed.
	 * @param item the item, not {@code null}
	 * @param delay how long to wait; zero or less is {@code add(item, priority)}
	 * @param priority from {@link #MIN_PRIORITY} to {@link #MAX_PRIORITY}
	 * @throws IllegalArgumentException if {@code priority} is out of range
	 */
	void addAfter(T item, Duration delay, int priority);

	/**
	 * Adds an item with a priority after the delay the rate limiter gives for it.
	 * @param item the item, not {@code null}
	 * @param priority from {@link #MIN_PRIORITY} to {@link #MAX_PRIORITY}
	 * @throws IllegalArgumentException if {@code priority} is out of range
	 */
	void addRateLimited(T item, int priority);

	/**
	 * Takes the next item with the priority it was handed out with, blocking until one is
	 * ready.
	 * @return the item and its priority, or {@code null} once shut down and empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> getWithPriority() throws InterruptedException;

	/**
	 * Takes the next item with its priority, waiting at most {@code timeout}.
	 * @param timeout how long to wait, not {@code null}
	 * @return the item and its priority, or {@code null} on timeout or once shut down and
	 * empty
	 * @throws InterruptedException if interrupted while waiting
	 */
	Prioritized<T> pollWithPriority(Duration timeout) throws InterruptedException;

	@Override
	default void add(T item) {
		add(item, 0);
	}

	@Override
	default void addAfter(T item, Duration delay) {
		addAfter(item, delay, 0);
	}

	@Override
	default void addRateLimited(T item) {
		addRateLimited(item, 0);
	}

	@Override
	default T get() throws InterruptedException {
		Prioritized<T> next = getWithPriority();
		return (next != null) ? next.item() : null;
	}

	@Override
	default T poll(Duration timeout) throws InterruptedException {
		Prioritized<T> next = pollWithPriority(timeout);
		return (next != null) ? next.item() : null;
	}

	/**
	 * Returns the ready items per priority, highest first, with the age of the oldest
	 * ready item of each: what gauges and operators watch to see starvation coming. The
	 * default, for other implementations, is empty.
	 * @return one level per priority with ready items
	 */
	default List<Level> readyLevels() {
		return List.of();
	}

	/**
	 * Checks a priority.
	 * @param priority the priority
	 * @return the priority
	 * @throws IllegalArgumentException if it is out of range
	 */
	static int checkPriority(int priority) {
		if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
			throw new IllegalArgumentException(
					"priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", was " + priority);
		}
		return priority;
	}

	/**
	 * An item handed out, with the priority it was handed out with.
	 *
	 * @param item the item
	 * @param priority its priority
	 * @param <T> the item type
	 */
	record Prioritized<T>(T item, int priority) {

	}

	/**
	 * The ready items of one priority.
	 *
	 * @param priority the priority
	 * @param ready how many items of it are ready
	 * @param oldestReadyNanos how long the one ready longest has been ready, or -1 when
	 * the queue does not track ready times (a queue of {@link WorkQueues} built without
	 * metrics that record durations and without a starvation guard: it then reads its
	 * clock no more than a plain queue)
	 */
	record Level(int priority, int ready, long oldestReadyNanos) {

	}

}
