package dev.workqueue;

import dev.workqueue.internal.KeyedEntry;

/**
 * An item waiting in a {@link DelayingWorkQueue} for its ready time: created by the
 * producer in {@code addAfter} and kept in the queue's {@link WaitingHeap}. 32 bytes with
 * compressed oops.
 *
 * @param <T> the item type
 */
final class WaitingEntry<T> extends KeyedEntry<T> {

	/** Clock reading at which the item is due; lowered in place by the heap's dedup. */
	long readyAtNanos;

	/** Position in the heap, kept by the heap so that it can move the entry in place. */
	int index;

	WaitingEntry(T item, long readyAtNanos) {
		super(item);
		this.readyAtNanos = readyAtNanos;
	}

}
