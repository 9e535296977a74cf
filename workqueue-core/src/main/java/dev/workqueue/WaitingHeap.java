package dev.workqueue;

import java.util.Arrays;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;

/**
 * The delaying queue's waiting items: a binary min-heap of {@link WaitingEntry entries}
 * ordered by ready time, plus an {@link ItemTable} index so that an item waits at most
 * once (client-go's {@code waitForPriorityQueue} with its {@code knownEntries} map).
 * <p>
 * Offering an item that already waits keeps the earlier of the two ready times, moving
 * the present entry up in place (client-go's {@code heap.Fix}) instead of adding a
 * duplicate. Each entry records its heap position, so that move costs O(log n) without a
 * search. It never reads a clock: {@link #pollDue(long)} takes the time as an argument.
 * <p>
 * Memory per waiting item, compressed oops: the entry (32 bytes), its heap slot (4 bytes
 * in an array grown by half, so 4 to 6) and its index slot (8 to 16 bytes): 44 to 54
 * bytes, about 45 at a million items (index of 2<sup>21</sup> slots, heap array of about
 * 1.2 million). Both arrays shrink when the heap empties.
 * <p>
 * Not thread-safe: guarded by the delaying queue's lock.
 * <p>
 * <b>Why not {@code dev.workqueue.delay.EntryHeap}.</b> That heap serves the delay queue,
 * whose values are not keys (they need no {@code hashCode}) and whose contract orders
 * equal due times by push: it keeps a sequence number per entry and due times in a
 * parallel {@code long} array. A waiting item needs neither (the delaying queue leaves
 * ties unordered), but needs the dedup index, whose entries must be {@link KeyedEntry}s;
 * one entry type cannot serve both without hashing every delay-queue value. Sharing the
 * 4-ary layout would add about 18 bytes per waiting item (the sequence, plus 1.2 slots of
 * the due array) to the 45.8 bytes per item measured by the benchmarks'
 * {@code RetainedHeapBenchmark} (W3), against a budget of 64.
 *
 * @param <T> the item type
 */
final class WaitingHeap<T> {

	private static final int MIN_CAPACITY = 16;

	private final ItemTable<T, WaitingEntry<T>> index = new ItemTable<>();

	private WaitingEntry<T>[] heap = newHeap(MIN_CAPACITY);

	private int size;

	/**
	 * Adds {@code entry}, or lowers the ready time of the entry already waiting for the
	 * same item to {@code entry}'s if that is earlier.
	 * @param entry the entry
	 * @return {@code true} if {@code entry} was added, {@code false} if it was folded
	 * into the present one
	 */
	boolean offer(WaitingEntry<T> entry) {
		WaitingEntry<T> present = this.index.putIfAbsent(entry);
		if (present != null) {
			if (entry.readyAtNanos < present.readyAtNanos) {
				present.readyAtNanos = entry.readyAtNanos;
				siftUp(present.index, present);
			}
			return false;
		}
		if (this.size == this.heap.length) {
			this.heap = Arrays.copyOf(this.heap, this.size + (this.size >>> 1));
		}
		siftUp(this.size++, entry);
		return true;
	}

	/**
	 * Returns the earliest ready time.
	 * @return the head's ready time, {@link Long#MAX_VALUE} when empty
	 */
	long headReadyAtNanos() {
		return (this.size != 0) ? this.heap[0].readyAtNanos : Long.MAX_VALUE;
	}

	/**
	 * Removes and returns the item with the earliest ready time if it is due.
	 * @param nowNanos the current clock reading
	 * @return the item, or {@code null} if none is due at {@code nowNanos}
	 */
	T pollDue(long nowNanos) {
		if (this.size == 0 || this.heap[0].readyAtNanos > nowNanos) {
			return null;
		}
		WaitingEntry<T> head = this.heap[0];
		int last = --this.size;
		WaitingEntry<T> moved = this.heap[last];
		this.heap[last] = null;
		if (last > 0) {
			siftDown(0, moved);
		}
		this.index.remove(head);
		if (this.size < this.heap.length >>> 2 && this.heap.length > MIN_CAPACITY) {
			this.heap = Arrays.copyOf(this.heap, Math.max(MIN_CAPACITY, this.heap.length >>> 1));
		}
		return head.item;
	}

	int size() {
		return this.size;
	}

	/** Number of entries in the dedup index, for leak tests. */
	int indexSize() {
		return this.index.size();
	}

	void clear() {
		this.heap = newHeap(MIN_CAPACITY);
		this.size = 0;
		this.index.clear();
	}

	private void siftUp(int position, WaitingEntry<T> entry) {
		WaitingEntry<T>[] heap = this.heap;
		while (position > 0) {
			int parent = (position - 1) >>> 1;
			WaitingEntry<T> above = heap[parent];
			if (above.readyAtNanos <= entry.readyAtNanos) {
				break;
			}
			heap[position] = above;
			above.index = position;
			position = parent;
		}
		heap[position] = entry;
		entry.index = position;
	}

	private void siftDown(int position, WaitingEntry<T> entry) {
		WaitingEntry<T>[] heap = this.heap;
		int half = this.size >>> 1;
		while (position < half) {
			int child = (position << 1) + 1;
			WaitingEntry<T> below = heap[child];
			int right = child + 1;
			if (right < this.size && heap[right].readyAtNanos < below.readyAtNanos) {
				child = right;
				below = heap[right];
			}
			if (entry.readyAtNanos <= below.readyAtNanos) {
				break;
			}
			heap[position] = below;
			below.index = position;
			position = child;
		}
		heap[position] = entry;
		entry.index = position;
	}

	@SuppressWarnings("unchecked")
	private static <T> WaitingEntry<T>[] newHeap(int capacity) {
		return (WaitingEntry<T>[]) new WaitingEntry<?>[capacity];
	}

}
