package dev.workqueue.delay;

import java.util.Arrays;

/**
 * A binary min-heap of {@link HeapEntry entries} ordered by due time, then sequence.
 * Each entry records its position, so removing or re-ordering any entry costs O(log n)
 * without a search. It never reads a clock.
 * <p>
 * The array grows by half when full and halves when a quarter full (down to 16 slots),
 * so it holds 1 to 4 slots (4 to 16 bytes with compressed oops) per entry, about 1.2 on
 * average while growing.
 * <p>
 * Not thread-safe: guarded by the delay queue's lock.
 *
 * @param <T> the value type
 */
final class EntryHeap<T> {

	private static final int MIN_CAPACITY = 16;

	private HeapEntry<T>[] heap = newArray(MIN_CAPACITY);

	private int size;

	int size() {
		return this.size;
	}

	/** Returns the first entry, or {@code null} when empty. */
	HeapEntry<T> peek() {
		return this.heap[0];
	}

	void add(HeapEntry<T> entry) {
		if (this.size == this.heap.length) {
			this.heap = Arrays.copyOf(this.heap, this.size + (this.size >>> 1));
		}
		siftUp(this.size++, entry);
	}

	/** Removes and returns the first entry, or returns {@code null} when empty. */
	HeapEntry<T> poll() {
		HeapEntry<T> first = this.heap[0];
		if (first != null) {
			remove(first);
		}
		return first;
	}

	/** Removes {@code entry}, which must be in this heap. */
	void remove(HeapEntry<T> entry) {
		int index = entry.heapIndex;
		int last = --this.size;
		HeapEntry<T> moved = this.heap[last];
		this.heap[last] = null;
		entry.heapIndex = -1;
		if (index != last) {
			place(index, moved);
		}
		if (this.size < (this.heap.length >>> 2) && this.heap.length > MIN_CAPACITY) {
			this.heap = Arrays.copyOf(this.heap, Math.max(MIN_CAPACITY, this.heap.length >>> 1));
		}
	}

	/** Restores the order after the due time or sequence of {@code entry} changed. */
	void update(HeapEntry<T> entry) {
		place(entry.heapIndex, entry);
	}

	private void place(int index, HeapEntry<T> entry) {
		if (index > 0 && entry.isBefore(this.heap[(index - 1) >>> 1])) {
			siftUp(index, entry);
		}
		else {
			siftDown(index, entry);
		}
	}

	private void siftUp(int index, HeapEntry<T> entry) {
		HeapEntry<T>[] heap = this.heap;
		while (index > 0) {
			int parent = (index - 1) >>> 1;
			HeapEntry<T> above = heap[parent];
			if (!entry.isBefore(above)) {
				break;
			}
			heap[index] = above;
			above.heapIndex = index;
			index = parent;
		}
		heap[index] = entry;
		entry.heapIndex = index;
	}

	private void siftDown(int index, HeapEntry<T> entry) {
		HeapEntry<T>[] heap = this.heap;
		int half = this.size >>> 1;
		while (index < half) {
			int child = (index << 1) + 1;
			HeapEntry<T> below = heap[child];
			int right = child + 1;
			if (right < this.size && heap[right].isBefore(below)) {
				child = right;
				below = heap[right];
			}
			if (!below.isBefore(entry)) {
				break;
			}
			heap[index] = below;
			below.heapIndex = index;
			index = child;
		}
		heap[index] = entry;
		entry.heapIndex = index;
	}

	@SuppressWarnings("unchecked")
	private static <T> HeapEntry<T>[] newArray(int capacity) {
		return (HeapEntry<T>[]) new HeapEntry<?>[capacity];
	}

}
