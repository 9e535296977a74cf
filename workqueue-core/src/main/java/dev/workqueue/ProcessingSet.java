package dev.workqueue;

/**
 * The items a {@link BasicQueue} has handed out and not yet seen {@code done}:
 * client-go's {@code processing} set, kept apart from the ready FIFO as client-go keeps
 * {@code queue}, {@code dirty} and {@code processing} apart.
 * <p>
 * It always counts its nodes. When the queue records metrics ({@code timed}), it also
 * links them in hand-out order through {@link Node#next}/{@link Node#prev} (a node is
 * never in the ready FIFO at the same time) and sums their start times, so the unfinished
 * work and the longest-running item cost O(1) to read. It never reads a clock: callers
 * pass the time.
 * <p>
 * Not thread-safe: guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class ProcessingSet<T> {

	private final boolean timed;

	/** Longest-running node, linked only when timed. */
	private Node<T> first;

	/** Newest node handed out, linked only when timed. */
	private Node<T> last;

	private int size;

	/** Sum of the nodes' start times, wrapping; only when timed. */
	private long startedNanosSum;

	ProcessingSet(boolean timed) {
		this.timed = timed;
	}

	/**
	 * Adds a node just handed out.
	 * @param node the node
	 * @param nowNanos the time of the hand-out; ignored unless timed
	 */
	void add(Node<T> node, long nowNanos) {
		this.size++;
		if (!this.timed) {
			return;
		}
		node.startedAtNanos = nowNanos;
		this.startedNanosSum += nowNanos;
		node.prev = this.last;
		if (this.last == null) {
			this.first = node;
		}
		else {
			this.last.next = node;
		}
		this.last = node;
	}

	/**
	 * Removes a node on {@code done}.
	 * @param node the node, which must be in this set
	 * @param nowNanos the time of {@code done}; ignored unless timed
	 * @return its work time, or 0 unless timed
	 */
	long remove(Node<T> node, long nowNanos) {
		this.size--;
		if (!this.timed) {
			return 0;
		}
		if (node.prev == null) {
			this.first = node.next;
		}
		else {
			node.prev.next = node.next;
		}
		if (node.next == null) {
			this.last = node.prev;
		}
		else {
			node.next.prev = node.prev;
		}
		node.next = null;
		node.prev = null;
		this.startedNanosSum -= node.startedAtNanos;
		return nowNanos - node.startedAtNanos;
	}

	int size() {
		return this.size;
	}

	/** The summed age of the work in progress at {@code nowNanos}; 0 unless timed. */
	long unfinishedNanos(long nowNanos) {
		// The sum of (now - start) over the nodes: exact despite wrapping, as long as
		// the true sum fits in a long.
		return this.timed ? this.size * nowNanos - this.startedNanosSum : 0;
	}

	/**
	 * The age of the longest-running node at {@code nowNanos}; 0 when empty or untimed.
	 */
	long longestNanos(long nowNanos) {
		return (this.first != null) ? nowNanos - this.first.startedAtNanos : 0;
	}

}
