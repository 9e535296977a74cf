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

	/**
	 * Creates the node of a new item, of the class this order links.
	 * @param item the item
	 * @param hash its hash code
	 * @param state {@link Node#QUEUED} or {@link Node#WAITING}
	 * @return the node
	 */
	Node<T> newNode(T item, int hash, int state);

	/**
	 * Lines up a node that becomes ready (client-go's {@code Push}).
	 * @param node a node in no ready list
	 * @param priority the priority of the add that makes it ready
	 * @param readySinceNanos when it became ready, if {@link #tracksReadyTimes()}
	 */
	void push(Node<T> node, int priority, long readySinceNanos);

	/**
	 * Lines up again a node that was added while it was processed, on its {@code done}.
	 * @param node a node in no ready list
	 * @param readySinceNanos when it became ready, if {@link #tracksReadyTimes()}
	 */
	void requeue(Node<T> node, long readySinceNanos);

	/**
	 * Takes an add that lines nothing up (client-go's {@code Touch}): of a node queued
	 * already, or of one being processed and added again ({@link Node#DIRTY}).
	 * @param node the node
	 * @param priority the add's priority
	 */
	void touch(Node<T> node, int priority);

	/**
	 * Takes a delayed add, before the node's ready time is set (a node that waits already
	 * keeps the higher priority).
	 * @param node the node
	 * @param priority the add's priority
	 */
	void delay(Node<T> node, int priority);

	/**
	 * Returns the priority of a node's delayed adds, for when its delay ends.
	 * @param node a node whose delay just ended
	 * @return the priority to add it with
	 */
	int delayedPriority(Node<T> node);

	/**
	 * Takes the node to hand out next (client-go's {@code Pop}).
	 * @param nowNanos the time of the hand-out, if {@link #tracksReadyTimes()}
	 * @return the node, out of the order; there is one
	 */
	Node<T> pop(long nowNanos);

	/**
	 * Returns the priority a node was handed out with.
	 * @param node a node handed out
	 * @return its priority
	 */
	int priority(Node<T> node);

	/**
	 * Returns the ready node ready longest, whose age the stats report.
	 * @return the node, or {@code null} if none is ready
	 */
	Node<T> oldest();

	/**
	 * Whether {@link #touch} ignores every add (a FIFO): the engine then absorbs an add
	 * of a node queued already without its lock.
	 * @return whether touches change nothing
	 */
	boolean ignoresTouches();

	/**
	 * Whether the order needs the time at which each node became ready, and at hand-out:
	 * the engine then reads its clock for them.
	 * @return whether ready times are tracked
	 */
	boolean tracksReadyTimes();

	/**
	 * Returns the ready nodes per priority, highest first.
	 * @param nowNanos the clock's reading, if {@link #tracksReadyTimes()}
	 * @return the levels
	 */
	List<Level> levels(long nowNanos);

}
