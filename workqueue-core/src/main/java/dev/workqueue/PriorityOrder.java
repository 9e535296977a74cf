package dev.workqueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.workqueue.PriorityQueue.Level;

/**
 * The ready order of a {@link PriorityQueue}, controller-runtime's rules (contract §4):
 * highest priority first, FIFO within a priority, and with a starvation timeout the node
 * ready longest first once it has been ready for longer than that.
 * <p>
 * <b>How it works.</b> Each ready {@link PriorityNode} is linked twice, both intrusive:
 * into its priority's {@link Bucket} (a FIFO; the buckets in an array sorted by priority,
 * the highest non-empty one kept at hand) and into one list in the order nodes became
 * ready, whose head is the node ready longest, for the starvation guard. Lining a node
 * up, raising its priority or taking it allocates nothing (but a new level) and costs a
 * binary search for its level at most, none to line up in or take from the highest. A
 * node being processed keeps the highest priority of its adds meanwhile ({@code done}
 * lines it up with it); a waiting node the highest of its delayed adds. A node made ready
 * while a delay is pending takes the higher of both.
 * <p>
 * Ready times are tracked (and the engine reads its clock for them) only with a
 * starvation guard or duration metrics; {@link #levels} reports -1 ages otherwise.
 * Guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class PriorityOrder<T> implements ReadyOrder<T> {

	/**
	 * The dirty priority of a node not added since its hand-out: below every priority.
	 */
	static final int NO_ADD = Integer.MIN_VALUE;

	/**
	 * Empty levels are kept while there are at most this many, so that a queue cycling
	 * through a few priorities does not allocate a level each time one empties.
	 */
	private static final int KEPT_LEVELS = 64;

	/** Negative: strict priority. */
	private final long starvationNanos;

	private final boolean readyTimes;

	/** The levels, by priority ascending: the non-empty ones, and empty ones kept. */
	private Bucket<T>[] levels = newLevels(8);

	private int levelCount;

	/** The highest level with ready nodes, or {@code null} when none is ready. */
	private Bucket<T> highest;

	/** Levels with ready nodes: none left means no level to look for. */
	private int nonEmptyLevels;

	/** The ready node ready longest, and the one ready last. */
	private PriorityNode<T> oldest;

	private PriorityNode<T> newest;

	/**
	 * Creates the order.
	 * @param starvationNanos the starvation timeout, negative for none
	 * @param durations whether the queue records durations, which the ready ages join
	 */
	PriorityOrder(long starvationNanos, boolean durations) {
		this.starvationNanos = starvationNanos;
		this.readyTimes = starvationNanos >= 0 || durations;
	}

	@Override
	public Node<T> newNode(T item, int hash, int state) {
		return new PriorityNode<>(item, hash, state);
	}

	@Override
	public void push(Node<T> node, int priority, long readySinceNanos) {
		PriorityNode<T> entry = (PriorityNode<T>) node;
		entry.priority = node.isWaiting() ? Math.max(priority, entry.waitPriority) : priority;
		entry.startedAtNanos = readySinceNanos;
		linkToLevel(entry);
		entry.agePrev = this.newest;
		if (this.newest != null) {
			this.newest.ageNext = entry;
		}
		else {
			this.oldest = entry;
		}
		this.newest = entry;
	}

	@Override
	public void requeue(Node<T> node, long readySinceNanos) {
		push(node, ((PriorityNode<T>) node).dirtyPriority, readySinceNanos);
	}

	@Override
	public void touch(Node<T> node, int priority) {
		PriorityNode<T> entry = (PriorityNode<T>) node;
		if (node.state == Node.DIRTY) {
			entry.dirtyPriority = Math.max(entry.dirtyPriority, priority);
		}
		else if (priority > entry.priority) {
			// Raised: to the back of its new level; its ready age stays.
			unlinkFromLevel(entry, level(entry.priority));
			entry.priority = priority;
			linkToLevel(entry);
		}
	}

	@Override
	public void delay(Node<T> node, int priority) {
		PriorityNode<T> entry = (PriorityNode<T>) node;
		entry.waitPriority = node.isWaiting() ? Math.max(entry.waitPriority, priority) : priority;
	}

	@Override
	public int delayedPriority(Node<T> node) {
		return ((PriorityNode<T>) node).waitPriority;
	}

	@Override
	public Node<T> pop(long nowNanos) {
		PriorityNode<T> entry = this.oldest;
		Bucket<T> level;
		if (starving(entry, nowNanos)) {
			level = level(entry.priority);
		}
		else {
			level = this.highest;
			entry = level.head;
		}
		unlinkFromLevel(entry, level);
		unlinkFromAge(entry);
		entry.dirtyPriority = NO_ADD;
		return entry;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The starving nodes first, oldest first, as {@link #pop} takes them: a prefix of the
	 * ready-age list, which is sorted by ready time. Then the others by level, highest
	 * first, FIFO within one, skipping the starving ones copied already. Costs O(count +
	 * levels).
	 */
	@Override
	public void copyReady(long nowNanos, int count, List<Node<T>> into) {
		for (PriorityNode<T> entry = this.oldest; entry != null && into.size() < count
				&& starving(entry, nowNanos); entry = entry.ageNext) {
			into.add(entry);
		}
		for (int i = this.levelCount - 1; i >= 0 && into.size() < count; i--) {
			for (PriorityNode<T> entry = this.levels[i].head; entry != null
					&& into.size() < count; entry = (PriorityNode<T>) entry.next) {
				if (!starving(entry, nowNanos)) {
					into.add(entry);
				}
			}
		}
	}

	@Override
	public long readySinceNanos(Node<T> node) {
		return this.readyTimes ? ((PriorityNode<T>) node).startedAtNanos : DelayingWorkQueue.UNDATED;
	}

	@Override
	public int priority(Node<T> node) {
		return ((PriorityNode<T>) node).priority;
	}

	@Override
	public Node<T> oldest() {
		return this.oldest;
	}

	@Override
	public boolean ignoresTouches() {
		return false;
	}

	@Override
	public boolean linesUpDueInBatches() {
		return false;
	}

	@Override
	public boolean tracksReadyTimes() {
		return this.readyTimes;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Walks the ready nodes once, oldest first: O(ready items), for scrapes.
	 */
	@Override
	public List<Level> levels(long nowNanos) {
		Map<Integer, Long> oldestByPriority = new HashMap<>();
		for (PriorityNode<T> entry = this.oldest; entry != null
				&& oldestByPriority.size() < this.nonEmptyLevels; entry = entry.ageNext) {
			oldestByPriority.putIfAbsent(entry.priority, this.readyTimes ? nowNanos - entry.startedAtNanos : -1);
		}
		List<Level> ready = new ArrayList<>();
		for (int i = this.levelCount - 1; i >= 0; i--) {
			Bucket<T> level = this.levels[i];
			if (level.size > 0) {
				ready.add(new Level(level.priority, level.size, oldestByPriority.get(level.priority)));
			}
		}
		return ready;
	}

	/**
	 * Whether a ready node has waited past the starvation timeout at {@code nowNanos}.
	 */
	private boolean starving(PriorityNode<T> entry, long nowNanos) {
		return this.starvationNanos >= 0 && nowNanos - entry.startedAtNanos > this.starvationNanos;
	}

	/** The level of {@code priority}, made (and placed by its priority) if missing. */
	private Bucket<T> level(int priority) {
		if (this.highest != null && this.highest.priority == priority) {
			return this.highest;
		}
		int index = indexOf(priority);
		if (index >= 0) {
			return this.levels[index];
		}
		index = -index - 1;
		if (this.levelCount == this.levels.length) {
			this.levels = Arrays.copyOf(this.levels, this.levelCount << 1);
		}
		System.arraycopy(this.levels, index, this.levels, index + 1, this.levelCount - index);
		this.levelCount++;
		Bucket<T> level = new Bucket<>(priority);
		this.levels[index] = level;
		return level;
	}

	/**
	 * Binary search of the levels: the index of {@code priority}'s, or
	 * {@code -(insertion point) - 1}.
	 */
	private int indexOf(int priority) {
		int low = 0;
		int high = this.levelCount - 1;
		while (low <= high) {
			int middle = (low + high) >>> 1;
			int found = this.levels[middle].priority;
			if (found < priority) {
				low = middle + 1;
			}
			else if (found > priority) {
				high = middle - 1;
			}
			else {
				return middle;
			}
		}
		return -low - 1;
	}

	private void linkToLevel(PriorityNode<T> entry) {
		Bucket<T> level = level(entry.priority);
		entry.prev = level.tail;
		entry.next = null;
		if (level.tail != null) {
			level.tail.next = entry;
		}
		else {
			level.head = entry;
		}
		level.tail = entry;
		if (level.size++ == 0) {
			this.nonEmptyLevels++;
		}
		if (this.highest == null || level.priority > this.highest.priority) {
			this.highest = level;
		}
	}

	private void unlinkFromLevel(PriorityNode<T> entry, Bucket<T> level) {
		PriorityNode<T> prev = (PriorityNode<T>) entry.prev;
		PriorityNode<T> next = (PriorityNode<T>) entry.next;
		if (prev != null) {
			prev.next = next;
		}
		else {
			level.head = next;
		}
		if (next != null) {
			next.prev = prev;
		}
		else {
			level.tail = prev;
		}
		entry.prev = null;
		entry.next = null;
		if (--level.size > 0) {
			return;
		}
		int index = indexOf(level.priority);
		if (level == this.highest) {
			this.highest = (--this.nonEmptyLevels > 0) ? nextNonEmptyBelow(index) : null;
		}
		else {
			this.nonEmptyLevels--;
		}
		if (this.levelCount > KEPT_LEVELS) {
			System.arraycopy(this.levels, index + 1, this.levels, index, this.levelCount - index - 1);
			this.levels[--this.levelCount] = null;
		}
	}

	/** The highest level with ready nodes below the one at {@code index}, or null. */
	private Bucket<T> nextNonEmptyBelow(int index) {
		for (int i = index - 1; i >= 0; i--) {
			if (this.levels[i].size > 0) {
				return this.levels[i];
			}
		}
		return null;
	}

	private void unlinkFromAge(PriorityNode<T> entry) {
		if (entry.agePrev != null) {
			entry.agePrev.ageNext = entry.ageNext;
		}
		else {
			this.oldest = entry.ageNext;
		}
		if (entry.ageNext != null) {
			entry.ageNext.agePrev = entry.agePrev;
		}
		else {
			this.newest = entry.agePrev;
		}
		entry.agePrev = null;
		entry.ageNext = null;
	}

	@SuppressWarnings("unchecked")
	private static <T> Bucket<T>[] newLevels(int capacity) {
		return (Bucket<T>[]) new Bucket<?>[capacity];
	}

	@Override
	public String toString() {
		return (this.starvationNanos >= 0) ? "starvation timeout " + Duration.ofNanos(this.starvationNanos)
				: "strict priority";
	}

	/**
	 * The ready nodes of one priority, a FIFO. Guarded by the queue's lock.
	 *
	 * @param <T> the item type
	 */
	static final class Bucket<T> {

		final int priority;

		PriorityNode<T> head;

		PriorityNode<T> tail;

		int size;

		Bucket(int priority) {
			this.priority = priority;
		}

	}

}
