package dev.workqueue;

/**
 * A {@link Node} of a priority queue: a {@link TimedNode} (a priority queue's nodes are
 * one class, with metrics or without) that also keeps its priorities and its place in the
 * {@link PriorityOrder}'s ready-age list; 80 bytes with compressed oops, as many as a
 * timed node and its priorities need. It reuses what the order does not need at the same
 * time: while ready it is linked into its level through {@link Node#next} and
 * {@link TimedNode#prev}, which the processing list uses only while it is handed out, and
 * {@link TimedNode#startedAtNanos} holds when it became ready, which the hand-out
 * overwrites. Guarded by the queue's lock.
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

	/** Neighbours in the ready-age list, while ready. */
	PriorityNode<T> agePrev;

	PriorityNode<T> ageNext;

	PriorityNode(T item, int hash, int state) {
		super(item, hash, state);
	}

}
