package dev.workqueue;

/**
 * An item waiting in a {@link DelayingWorkQueue} for its ready time: created by the
 * producer in {@code addAfter}, handed to the owner thread through the hand-off stack,
 * then kept in the owner's {@link WaitingHeap}. 40 bytes with compressed oops.
 *
 * @param <T> the item type
 */
final class WaitingEntry<T> extends KeyedEntry<T> {

	/** Clock reading at which the item is due; lowered in place by the heap's dedup. */
	long readyAtNanos;

	/** Position in the heap, kept by the heap so that it can move the entry in place. */
	int index;

	/** Next entry in the hand-off stack; cleared once the owner takes the entry. */
	WaitingEntry<T> next;

	WaitingEntry(T item, long readyAtNanos) {
		super(item);
		this.readyAtNanos = readyAtNanos;
	}

}
