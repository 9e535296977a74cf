package dev.workqueue;

import java.util.List;

import dev.workqueue.PriorityQueue.Level;

/**
 * The ready order of a plain, delaying or rate-limiting queue: a FIFO linked through
 * {@link Node#next}, as client-go's default {@code queue}. Priorities are ignored, and so
 * are adds that line nothing up. Nodes are plain {@link Node}s, or {@link TimedNode}s
 * when the queue records metrics. Guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class FifoOrder<T> implements ReadyOrder<T> {

	private final boolean timed;

	/** Oldest ready node, next to hand out. */
	private Node<T> head;

	/** Newest ready node. */
	private Node<T> tail;

	FifoOrder(boolean timed) {
		this.timed = timed;
	}

	@Override
	public Node<T> newNode(T item, int hash, int state) {
		return this.timed ? new TimedNode<>(item, hash, state) : new Node<>(item, hash, state);
	}

	@Override
	public void push(Node<T> node, int priority, long readySinceNanos) {
		if (this.tail == null) {
			this.head = node;
		}
		else {
			this.tail.next = node;
		}
		this.tail = node;
	}

	@Override
	public void requeue(Node<T> node, long readySinceNanos) {
		push(node, 0, readySinceNanos);
	}

	@Override
	public void touch(Node<T> node, int priority) {
	}

	@Override
	public void delay(Node<T> node, int priority) {
	}

	@Override
	public int delayedPriority(Node<T> node) {
		return 0;
	}

	@Override
	public Node<T> pop(long nowNanos) {
		Node<T> node = this.head;
		this.head = node.next;
		if (this.head == null) {
			this.tail = null;
		}
		node.next = null;
		return node;
	}

	@Override
	public void copyReady(long nowNanos, int count, List<Node<T>> into) {
		for (Node<T> node = this.head; node != null && into.size() < count; node = node.next) {
			into.add(node);
		}
	}

	@Override
	public long readySinceNanos(Node<T> node) {
		return DelayingWorkQueue.UNDATED;
	}

	@Override
	public int priority(Node<T> node) {
		return 0;
	}

	@Override
	public Node<T> oldest() {
		return this.head;
	}

	@Override
	public boolean ignoresTouches() {
		return true;
	}

	@Override
	public boolean linesUpDueInBatches() {
		return true;
	}

	@Override
	public boolean tracksReadyTimes() {
		return false;
	}

	@Override
	public List<Level> levels(long nowNanos) {
		return List.of();
	}

}
