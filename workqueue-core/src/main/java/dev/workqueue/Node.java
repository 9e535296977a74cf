package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.workqueue.internal.KeyedEntry;

/**
 * One item's state in a {@link DelayingWorkQueue}: client-go's {@code dirty},
 * {@code processing} and waiting-for-a-delay memberships folded into one object, which
 * stays the same from the item's first {@code add} or {@code addAfter} to its last
 * {@code done}. Fields other than {@code state} are guarded by the queue's lock;
 * {@code state} is also read (and CAS'd to itself) by the lock-free duplicate check.
 * <p>
 * A node can wait for a delay ({@link #isWaiting()}, in the queue's {@link NodeHeap})
 * whatever its state: an item queued or being processed can also have an {@code addAfter}
 * pending, as in client-go. {@link #WAITING} is the state of a node that does nothing but
 * wait.
 * <p>
 * 40 bytes with compressed oops; a queue that records metrics uses the larger
 * {@link TimedNode}, a priority queue a {@link PriorityNode}.
 *
 * @param <T> the item type
 */
class Node<T> extends KeyedEntry<T> {

	/** Ready, in the queue's ready order, not yet handed out. */
	static final int QUEUED = 0;

	/**
	 * Handed out, not yet done. Also the final state of a node removed from the map.
	 */
	static final int PROCESSING = 1;

	/** Handed out, not yet done, and added again: queued again on done. */
	static final int DIRTY = 2;

	/** Neither queued nor processing: only waiting for its ready time. */
	static final int WAITING = 3;

	/** {@link #heapIndex} of a node that is not waiting. */
	static final int NOT_WAITING = -1;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(Node.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/**
	 * Starts QUEUED or WAITING without a volatile write: the table publishes the node.
	 */
	volatile int state;

	/**
	 * Next in the ready order (the FIFO, or a priority level), or in the processing list.
	 */
	Node<T> next;

	/** When the pending delay ends; meaningful while {@link #isWaiting()}. */
	long readyAtNanos;

	/** Position in the queue's {@link NodeHeap}, or {@link #NOT_WAITING}. */
	int heapIndex = NOT_WAITING;

	Node(T item, int hash, int state) {
		super(item, hash);
		STATE.set(this, state);
	}

	/** Whether a delay is pending: the node is in the heap. */
	final boolean isWaiting() {
		return this.heapIndex != NOT_WAITING;
	}

	/**
	 * Tries to absorb an {@code add} of this node's item without the lock; returns
	 * whether it did. It succeeds only if the node is QUEUED or DIRTY at the moment of
	 * the CAS, where the add linearises as a no-op:
	 * <ul>
	 * <li>A QUEUED or DIRTY node is always the item's node in the map: nodes enter the
	 * map QUEUED or WAITING, and a node leaves it only as PROCESSING, never to change
	 * again.</li>
	 * <li>QUEUED means not yet handed out, DIRTY means queued again on done: either way a
	 * hand-out of the item follows this add, so no update is lost. A WAITING node is not
	 * queued, so its add takes the lock.</li>
	 * <li>The transitions out of QUEUED and DIRTY use {@code getAndSet}, which reads this
	 * CAS's write: the add happens before that hand-out. If a transition wins the race,
	 * the CAS fails and the add takes the lock.</li>
	 * </ul>
	 * After shutdown a QUEUED node still absorbs the add, which is ignored anyway.
	 */
	final boolean absorbDuplicate() {
		// A failed CAS means another thread changed the state: re-read and retry while
		// it is still one that absorbs (producers absorbing the same item race here).
		for (int current = this.state; current == QUEUED || current == DIRTY; current = this.state) {
			if (STATE.compareAndSet(this, current, current)) {
				return true;
			}
		}
		return false;
	}

	/*
	 * The transitions below that are not out of QUEUED or DIRTY happen under the lock,
	 * and a release store suffices for them: the change publishes through the lock, and a
	 * racing reader that still sees the old state (never one that absorbs) takes the
	 * lock.
	 */

	/** PROCESSING → DIRTY: added again while being processed. */
	final void markDirty() {
		STATE.setRelease(this, DIRTY);
	}

	/** WAITING → QUEUED: added, or its delay ended. */
	final void markQueued() {
		STATE.setRelease(this, QUEUED);
	}

	/** PROCESSING → WAITING: done while a delay is pending. */
	final void markWaiting() {
		STATE.setRelease(this, WAITING);
	}

	/** WAITING → PROCESSING for good: dropped from the map by shutdown. */
	final void markDropped() {
		STATE.setRelease(this, PROCESSING);
	}

	final void markProcessing() {
		STATE.getAndSet(this, PROCESSING);
	}

	final void markRequeued() {
		STATE.getAndSet(this, QUEUED);
	}

}
