package dev.workqueue;

/**
 * A {@link Node} of a queue that records metrics: it also keeps its add and hand-out
 * times, and its place in the {@link ProcessingSet}'s list. 64 bytes with compressed
 * oops. A {@link PriorityNode} is one too. Guarded by the queue's lock.
 *
 * @param <T> the item type
 */
sealed class TimedNode<T> extends Node<T> permits PriorityNode {

	/** Previous in the processing list. */
	TimedNode<T> prev;

	long queuedAtNanos;

	long startedAtNanos;

	TimedNode(T item, int hash, int state) {
		super(item, hash, state);
	}

}
