package dev.workqueue;

/**
 * A {@link Node} of a priority queue: a {@link TimedNode} (a priority queue's nodes are
 * one class, with metrics or without) that also keeps its priorities and its places in
 * the {@link PriorityOrder}. While ready it is linked into its level through
 * {@link Node#next} and {@link TimedNode#prev}, which the processing list uses only while
 * it is handed out, and into the ready-age list. Guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class PriorityNode<T> extends TimedNode<T> {

	/**
	 * While ready, its level's priority; while processing, the one it was handed out
	 * with.
	 */
	int priority;

	/**
	 * While processing, the highest priority of the adds since the hand-out, or
	 * {@link PriorityOrder#NO_ADD}.
	 */
	int dirtyPriority;

	/** While waiting, the highest priority of its delayed adds. */
	int waitPriority;

	/** When it became ready, if the order tracks ready times. */
	long readySinceNanos;

	/** While ready, its level. */
	PriorityOrder.Bucket<T> level;

	/** Neighbours in the ready-age list, while ready. */
	PriorityNode<T> agePrev;

	PriorityNode<T> ageNext;

	PriorityNode(T item, int hash, int state) {
		super(item, hash, state);
	}

}
