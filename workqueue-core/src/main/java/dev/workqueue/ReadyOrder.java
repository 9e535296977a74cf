package dev.workqueue;

import java.util.List;

import dev.workqueue.PriorityQueue.Level;

/**
 * The order in which a {@link DelayingWorkQueue} hands out its ready nodes: the seam
 * between the engine and what differs between queue kinds, as client-go's
 * {@code Queue[T]} ({@code Touch}, {@code Push}, {@code Len}, {@code Pop}) is the seam
 * inside its one {@code Typed} engine. {@link FifoOrder} lines nodes up in the order they
 * became ready; {@link PriorityOrder} by priority, with a starvation guard.
 * <p>
 * The engine owns everything else: the item table, the node states, delays, waiting,
 * counts and metrics; it counts the ready nodes itself (client-go's {@code Len}). An
 * order only links nodes and keeps the priorities of the adds it is told about, which a
 * FIFO ignores. It never reads a clock: the engine passes the times. Not thread-safe:
 * called with the queue's lock held.
 *
 * @param <T> the item type
 */
interface ReadyOrder<T> {

	/** Creates the node of a new item ({@link Node#QUEUED} or {@link Node#WAITING}). */
	Node<T> newNode(T item, int hash, int state);

	/**
	 * Lines up a node that becomes ready with the priority of the add that makes it ready
	 * (client-go's {@code Push}); {@code readySinceNanos} is meaningful if
	 * {@link #tracksReadyTimes()}.
	 */
	void push(Node<T> node, int priority, long readySinceNanos);

	/** Lines up again, on its {@code done}, a node added while it was processed. */
	void requeue(Node<T> node, long readySinceNanos);

	/**
	 * Takes an add that lines nothing up (client-go's {@code Touch}): of a node queued
	 * already, or of one being processed and added again ({@link Node#DIRTY}).
	 */
	void touch(Node<T> node, int priority);

	/**
	 * Takes a delayed add, before the node's ready time is set (a node that waits already
	 * keeps the higher priority).
	 */
	void delay(Node<T> node, int priority);

	/** Returns the priority to add a node with whose delay just ended. */
	int delayedPriority(Node<T> node);

	/**
	 * Takes the node to hand out next, out of the order (client-go's {@code Pop}); there
	 * is one. {@code nowNanos} is meaningful if {@link #tracksReadyTimes()}.
	 */
	Node<T> pop(long nowNanos);

	/** Returns the priority a node was handed out with. */
	int priority(Node<T> node);

	/** Returns the ready node ready longest, whose age the stats report, or null. */
	Node<T> oldest();

	/**
	 * Whether {@link #touch} ignores every add (a FIFO): the engine then absorbs an add
	 * of a node queued already without its lock.
	 */
	boolean ignoresTouches();

	/**
	 * Whether the engine may line due nodes up in bounded batches (a FIFO: a node left in
	 * the heap only lines up later); an order by priority needs every due node lined up
	 * before it picks, or a due node of higher priority, or a starving one, is passed
	 * over.
	 */
	boolean linesUpDueInBatches();

	/**
	 * Whether the order needs the time at which each node became ready, and at hand-out:
	 * the engine then reads its clock for them.
	 */
	boolean tracksReadyTimes();

	/**
	 * Copies the first {@code count} ready nodes in the order {@link #pop} would take
	 * them at {@code nowNanos} if nothing changed meanwhile, without changing the order.
	 */
	void copyReady(long nowNanos, int count, List<Node<T>> into);

	/**
	 * Returns when a ready node became ready, if the order keeps it (see
	 * {@link #tracksReadyTimes()}), else {@link DelayingWorkQueue#UNDATED}.
	 */
	long readySinceNanos(Node<T> node);

	/** Returns the ready nodes per priority, highest first. */
	List<Level> levels(long nowNanos);

}
