package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.workqueue.internal.KeyedEntry;

/**
 * One item's state in a {@link BasicQueue}: client-go's {@code dirty} and
 * {@code processing} membership folded into one {@code state}. Fields other than
 * {@code state} are guarded by the queue's lock; {@code state} is also read (and CAS'd to
 * itself) by the lock-free duplicate check.
 *
 * @param <T> the item type
 */
final class Node<T> extends KeyedEntry<T> {

	/** Ready, in the FIFO, not yet handed out. */
	static final int QUEUED = 0;

	/**
	 * Handed out, not yet done. Also the final state of a node removed from the map.
	 */
	static final int PROCESSING = 1;

	/** Handed out, not yet done, and added again: queued again on done. */
	static final int DIRTY = 2;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(Node.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** Starts QUEUED (zero) without a volatile write. */
	volatile int state;

	/** Next in the ready FIFO, or in the processing list. */
	Node<T> next;

	/** Previous in the processing list (timed only). */
	Node<T> prev;

	long queuedAtNanos;

	long startedAtNanos;

	Node(T item, int hash) {
		super(item, hash);
	}

	/**
	 * Tries to absorb an {@code add} of this node's item without the lock; returns
	 * whether it did. It succeeds only if the node is QUEUED or DIRTY at the moment of
	 * the CAS, where the add linearises as a no-op:
	 * <ul>
	 * <li>A QUEUED or DIRTY node is always the item's node in the map: nodes enter the
	 * map QUEUED, and a node leaves it only as PROCESSING, never to change again.</li>
	 * <li>QUEUED means not yet handed out, DIRTY means queued again on done: either way a
	 * hand-out of the item follows this add, so no update is lost.</li>
	 * <li>The transitions out of QUEUED and DIRTY use {@code getAndSet}, which reads this
	 * CAS's write: the add happens before that hand-out. If a transition wins the race,
	 * the CAS fails and the add takes the lock.</li>
	 * </ul>
	 * After shutdown a QUEUED node still absorbs the add, which is ignored anyway.
	 */
	boolean absorbDuplicate() {
		// A failed CAS means another thread changed the state: re-read and retry
		// unless it is now PROCESSING (producers absorbing the same item race here).
		for (int current = this.state; current != PROCESSING; current = this.state) {
			if (STATE.compareAndSet(this, current, current)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * PROCESSING → DIRTY, under the lock: a release store suffices, since that add
	 * publishes through the lock and a racing reader that still sees PROCESSING takes the
	 * lock.
	 */
	void markDirty() {
		STATE.setRelease(this, DIRTY);
	}

	void markProcessing() {
		STATE.getAndSet(this, PROCESSING);
	}

	void markRequeued() {
		STATE.getAndSet(this, QUEUED);
	}

}
