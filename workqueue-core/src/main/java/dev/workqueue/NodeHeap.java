package dev.workqueue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * The nodes of a {@link DelayingWorkQueue} that wait for their ready time: a binary
 * min-heap ordered by {@link Node#readyAtNanos}, each node keeping its position in
 * {@link Node#heapIndex} so that an earlier ready time moves it up in place (client-go's
 * {@code heap.Fix}) without a search. The queue's item table does the dedup, so the heap
 * holds a node at most once. It never reads a clock: {@link #pollDue(long)} takes the
 * time as an argument. Ties are left unordered, as client-go leaves them.
 * <p>
 * Memory: one array slot per waiting node, 4 bytes with compressed oops; the array
 * doubles when full, and is given back when the heap empties, never while nodes wait.
 * <p>
 * Not thread-safe: guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class NodeHeap<T> {

	private static final int MIN_CAPACITY = 16;

	private Node<T>[] heap = newArray(MIN_CAPACITY);

	private int size;

	/**
	 * Adds a node that is not waiting.
	 * @param node the node, its ready time set
	 */
	void insert(Node<T> node) {
		if (this.size == this.heap.length) {
			this.heap = Arrays.copyOf(this.heap, this.size << 1);
		}
		siftUp(this.size++, node);
	}

	/**
	 * Moves a waiting node's ready time earlier.
	 * @param node a node in this heap
	 * @param readyAtNanos its new ready time, before the present one
	 */
	void lower(Node<T> node, long readyAtNanos) {
		node.readyAtNanos = readyAtNanos;
		siftUp(node.heapIndex, node);
	}

	/**
	 * Returns the node with the earliest ready time.
	 * @return the head, or {@code null} when empty
	 */
	Node<T> head() {
		return (this.size != 0) ? this.heap[0] : null;
	}

	/**
	 * Removes and returns the node with the earliest ready time if it is due.
	 * @param nowNanos the current clock reading
	 * @return the node, no longer waiting, or {@code null} if none is due at
	 * {@code nowNanos}
	 */
	Node<T> pollDue(long nowNanos) {
		if (this.size == 0 || this.heap[0].readyAtNanos > nowNanos) {
			return null;
		}
		Node<T> head = this.heap[0];
		remove(head);
		return head;
	}

	/**
	 * Removes a waiting node, wherever it stands, in O(log n).
	 * @param node a node in this heap; no longer waiting afterwards
	 */
	void remove(Node<T> node) {
		int position = node.heapIndex;
		int last = --this.size;
		Node<T> moved = this.heap[last];
		this.heap[last] = null;
		node.heapIndex = Node.NOT_WAITING;
		if (position != last) {
			siftDown(position, moved);
			if (moved.heapIndex == position) {
				siftUp(position, moved);
			}
		}
		else if (last == 0 && this.heap.length > MIN_CAPACITY) {
			this.heap = newArray(MIN_CAPACITY);
		}
	}

	int size() {
		return this.size;
	}

	/**
	 * Copies the {@code count} nodes with the earliest ready times, earliest first,
	 * without changing the heap: a best-first walk from the root, whose frontier holds
	 * the children of the nodes copied, so that it costs O(count log count) however many
	 * nodes wait (ties come out in no set order).
	 * @param count how many at most
	 * @param into receives the nodes
	 */
	void copyEarliest(int count, List<Node<T>> into) {
		if (this.size == 0 || count <= 0) {
			return;
		}
		java.util.PriorityQueue<Node<T>> frontier = new java.util.PriorityQueue<>(
				Comparator.comparingLong((Node<T> node) -> node.readyAtNanos));
		frontier.add(this.heap[0]);
		for (int copied = 0; copied < count && !frontier.isEmpty(); copied++) {
			Node<T> node = frontier.poll();
			into.add(node);
			int child = (node.heapIndex << 1) + 1;
			for (int i = child; i < child + 2 && i < this.size; i++) {
				frontier.add(this.heap[i]);
			}
		}
	}

	/**
	 * Empties the heap, handing each node, no longer waiting, to {@code dropped}.
	 * @param dropped receives each node
	 */
	void clear(Consumer<Node<T>> dropped) {
		Node<T>[] nodes = this.heap;
		int count = this.size;
		this.heap = newArray(MIN_CAPACITY);
		this.size = 0;
		for (int i = 0; i < count; i++) {
			nodes[i].heapIndex = Node.NOT_WAITING;
			dropped.accept(nodes[i]);
		}
	}

	/** Number of array slots, for tests of the memory bound. */
	int capacity() {
		return this.heap.length;
	}

	private void siftUp(int position, Node<T> node) {
		Node<T>[] heap = this.heap;
		long readyAtNanos = node.readyAtNanos;
		while (position > 0) {
			int parent = (position - 1) >>> 1;
			Node<T> above = heap[parent];
			if (above.readyAtNanos <= readyAtNanos) {
				break;
			}
			heap[position] = above;
			above.heapIndex = position;
			position = parent;
		}
		heap[position] = node;
		node.heapIndex = position;
	}

	private void siftDown(int position, Node<T> node) {
		Node<T>[] heap = this.heap;
		long readyAtNanos = node.readyAtNanos;
		int size = this.size;
		int half = size >>> 1;
		while (position < half) {
			int child = (position << 1) + 1;
			Node<T> below = heap[child];
			int right = child + 1;
			if (right < size && heap[right].readyAtNanos < below.readyAtNanos) {
				child = right;
				below = heap[right];
			}
			if (readyAtNanos <= below.readyAtNanos) {
				break;
			}
			heap[position] = below;
			below.heapIndex = position;
			position = child;
		}
		heap[position] = node;
		node.heapIndex = position;
	}

	@SuppressWarnings("unchecked")
	private static <T> Node<T>[] newArray(int capacity) {
		return (Node<T>[]) new Node<?>[capacity];
	}

}
