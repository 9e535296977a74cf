package dev.workqueue.delay;

import java.util.Arrays;

/**
 * A 4-ary min-heap of {@link HeapEntry entries} ordered by due time, then sequence. It
 * never reads a clock.
 * <p>
 * Due times live in an array parallel to the entries, so choosing among four children
 * reads one or two cache lines of {@code long}s instead of four entry objects; only on
 * equal due times are the entries' sequences read. Each entry records its position, so
 * removing or re-ordering any entry costs O(log n) without a search; per level moved, the
 * one entry that moves is written. Four children per node halve the depth of a binary
 * heap, which matters when the heap holds many values and each level is a cache miss.
 * <p>
 * The arrays grow by half when full and halve when a quarter full (down to 16 slots), so
 * they hold 1 to 4 slots (12 to 48 bytes with compressed oops) per entry, about 1.2 slots
 * (15 bytes) on average while growing.
 * <p>
 * Not thread-safe: guarded by the delay queue's lock.
 * <p>
 * The delaying queue keeps its own binary heap ({@code dev.workqueue.NodeHeap}) on
 * purpose: its nodes carry their ready time and heap position, the queue's item table
 * does the dedup, and ties have no order, so this heap's per-entry sequence and due array
 * would cost it about 18 bytes per waiting item; see there.
 *
 * @param <T> the value type
 */
final class EntryHeap<T> {

	private static final int MIN_CAPACITY = 16;

	private HeapEntry<T>[] entries = newArray(MIN_CAPACITY);

	/** {@code dueNanos[i]} is the due time of {@code entries[i]}. */
	private long[] dueNanos = new long[MIN_CAPACITY];

	private int size;

	int size() {
		return this.size;
	}

	/** Returns the first entry, or {@code null} when empty. */
	HeapEntry<T> peek() {
		return this.entries[0];
	}

	/** Returns the due time of the first entry; the heap must not be empty. */
	long firstDueNanos() {
		return this.dueNanos[0];
	}

	/** Returns the due time of {@code entry}, which must be in this heap. */
	long dueNanosOf(HeapEntry<T> entry) {
		return this.dueNanos[entry.heapIndex];
	}

	void add(HeapEntry<T> entry, long dueNanos) {
		if (this.size == this.entries.length) {
			resize(this.size + (this.size >>> 1));
		}
		siftUp(this.size++, entry, dueNanos);
	}

	/** Removes and returns the first entry, or returns {@code null} when empty. */
	HeapEntry<T> poll() {
		HeapEntry<T> first = this.entries[0];
		if (first != null) {
			remove(first);
		}
		return first;
	}

	/** Removes {@code entry}, which must be in this heap. */
	void remove(HeapEntry<T> entry) {
		int index = entry.heapIndex;
		int last = --this.size;
		HeapEntry<T> moved = this.entries[last];
		long movedDueNanos = this.dueNanos[last];
		this.entries[last] = null;
		entry.heapIndex = -1;
		if (index != last) {
			place(index, moved, movedDueNanos);
		}
		if (this.size < (this.entries.length >>> 2) && this.entries.length > MIN_CAPACITY) {
			resize(Math.max(MIN_CAPACITY, this.entries.length >>> 1));
		}
	}

	/** Gives {@code entry} a new due time (its sequence may have changed too). */
	void update(HeapEntry<T> entry, long dueNanos) {
		place(entry.heapIndex, entry, dueNanos);
	}

	private void place(int index, HeapEntry<T> entry, long dueNanos) {
		int parent = (index - 1) >> 2;
		if (index > 0 && isBefore(dueNanos, entry, this.dueNanos[parent], this.entries[parent])) {
			siftUp(index, entry, dueNanos);
		}
		else {
			siftDown(index, entry, dueNanos);
		}
	}

	private void siftUp(int index, HeapEntry<T> entry, long dueNanos) {
		HeapEntry<T>[] entries = this.entries;
		long[] dues = this.dueNanos;
		while (index > 0) {
			int parent = (index - 1) >> 2;
			HeapEntry<T> above = entries[parent];
			if (!isBefore(dueNanos, entry, dues[parent], above)) {
				break;
			}
			entries[index] = above;
			dues[index] = dues[parent];
			above.heapIndex = index;
			index = parent;
		}
		entries[index] = entry;
		dues[index] = dueNanos;
		entry.heapIndex = index;
	}

	private void siftDown(int index, HeapEntry<T> entry, long dueNanos) {
		HeapEntry<T>[] entries = this.entries;
		long[] dues = this.dueNanos;
		int size = this.size;
		while (true) {
			int child = (index << 2) + 1;
			if (child >= size) {
				break;
			}
			int best = child;
			long bestDueNanos = dues[child];
			int end = Math.min(child + 4, size);
			for (int other = child + 1; other < end; other++) {
				long otherDueNanos = dues[other];
				if (otherDueNanos < bestDueNanos
						|| (otherDueNanos == bestDueNanos && entries[other].sequence < entries[best].sequence)) {
					best = other;
					bestDueNanos = otherDueNanos;
				}
			}
			HeapEntry<T> below = entries[best];
			if (!isBefore(bestDueNanos, below, dueNanos, entry)) {
				break;
			}
			entries[index] = below;
			dues[index] = bestDueNanos;
			below.heapIndex = index;
			index = best;
		}
		entries[index] = entry;
		dues[index] = dueNanos;
		entry.heapIndex = index;
	}

	private static <T> boolean isBefore(long dueNanos, HeapEntry<T> entry, long otherDueNanos, HeapEntry<T> other) {
		return (dueNanos != otherDueNanos) ? dueNanos < otherDueNanos : entry.sequence < other.sequence;
	}

	private void resize(int capacity) {
		this.entries = Arrays.copyOf(this.entries, capacity);
		this.dueNanos = Arrays.copyOf(this.dueNanos, capacity);
	}

	@SuppressWarnings("unchecked")
	private static <T> HeapEntry<T>[] newArray(int capacity) {
		return (HeapEntry<T>[]) new HeapEntry<?>[capacity];
	}

}
