package dev.workqueue;

import java.util.List;

/**
 * The items a {@link DelayingWorkQueue} has handed out and not yet seen {@code done}:
 * client-go's {@code processing} set, kept apart from the ready order as client-go keeps
 * {@code queue}, {@code dirty} and {@code processing} apart.
 * <p>
 * It always counts its nodes. When the queue records metrics ({@code timed}, and then its
 * nodes are {@link TimedNode}s), it also links them in hand-out order through
 * {@link Node#next}/{@link TimedNode#prev} (a node is never in the ready order at the
 * same time) and sums their start times, so the unfinished work and the longest-running
 * item cost O(1) to read. It never reads a clock: callers pass the time.
 * <p>
 * Not thread-safe: guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class ProcessingSet<T> {

	private final boolean timed;

	/** Longest-running node, linked only when timed. */
	private TimedNode<T> first;

	/** Newest node handed out, linked only when timed. */
	private TimedNode<T> last;

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
		TimedNode<T> timed = (TimedNode<T>) node;
		timed.startedAtNanos = nowNanos;
		this.startedNanosSum += nowNanos;
		timed.prev = this.last;
		if (this.last == null) {
			this.first = timed;
		}
		else {
			this.last.next = timed;
		}
		this.last = timed;
	}

	/**
	 * Removes a node on {@code done}.
	 * @param node the node, which must be in this set
	 */
	void remove(Node<T> node) {
		this.size--;
		if (!this.timed) {
			return;
		}
		TimedNode<T> timed = (TimedNode<T>) node;
		TimedNode<T> next = (TimedNode<T>) timed.next;
		if (timed.prev == null) {
			this.first = next;
		}
		else {
			timed.prev.next = next;
		}
		if (next == null) {
			this.last = timed.prev;
		}
		else {
			next.prev = timed.prev;
		}
		timed.next = null;
		timed.prev = null;
		this.startedNanosSum -= timed.startedAtNanos;
	}

	int size() {
		return this.size;
	}

	/**
	 * Whether the set links its nodes in hand-out order (the queue records metrics), so
	 * that {@link #copyOldest} can list them.
	 * @return {@code true} if timed
	 */
	boolean dated() {
		return this.timed;
	}

	/**
	 * Copies the nodes handed out longest ago, oldest first; timed sets only.
	 * @param count how many at most
	 * @param into receives the nodes
	 */
	void copyOldest(int count, List<Node<T>> into) {
		for (TimedNode<T> node = this.first; node != null && into.size() < count; node = (TimedNode<T>) node.next) {
			into.add(node);
		}
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
