package dev.workqueue.store;

import java.util.List;
import java.util.function.LongConsumer;

import dev.workqueue.PriorityQueue.Level;

/**
 * What a store does for a {@link SharedStoreQueue} beyond claims, releases and timed work
 * (their own drivers): it writes adds, reads the shared figures, and says where it keeps
 * the queue. Part of the shared-store engine, implemented by store modules; may change
 * before 1.0.
 * <p>
 * The handle checks and encodes items, asks for the trace context, counts its calls under
 * way (so that what the driver uses stays open during a call) and counts the metrics; the
 * driver only talks to the store. Thread-safe: the handle calls it from any thread at
 * once. The adds and reads block for their store calls and throw the store's unchecked
 * exception when it cannot be reached.
 */
public interface QueueDriver {

	/**
	 * Checks that the store can keep an item's encoding, before anything is sent
	 * (PostgreSQL's {@code text} holds no NUL character). No store call.
	 * @param encoded the item's encoding, not {@code null}
	 * @throws IllegalArgumentException naming what the store cannot keep
	 */
	default void checkEncoding(String encoded) {
	}

	/**
	 * Adds one item, ready now, by client-go's rules (an item queued already stays where
	 * it is; one being processed is marked to run again after its {@code done}). One
	 * round trip; a store may write concurrent adds of the handle together in it
	 * ({@link CallGroup}).
	 * @param encoded the item's encoding, checked
	 * @param priority its priority, checked (a store without priorities drops it)
	 * @param context its trace context, {@code null} for none
	 * @return how many new adds (of items neither queued nor being processed before) the
	 * call counts: 0 or 1, or, for an add written with others in one call, the whole
	 * call's count on one of them, so that the callers together count each item once
	 */
	long add(String encoded, int priority, String context);

	/**
	 * Adds items at priority 0, ready now, in as few store calls as the store allows,
	 * each sent before the first answer is awaited (one round trip: Redis pipelines its
	 * scripts, PostgreSQL writes them in one statement and one commit).
	 * @param encoded the items' encodings, checked, at least one
	 * @param context their trace context, {@code null} for none
	 * @param added told, on the calling thread, how many new adds the items were, before
	 * this returns, and before it throws when some store calls wrote their items and
	 * others failed
	 */
	void addAll(List<String> encoded, String context, LongConsumer added);

	/**
	 * Adds one item, ready once a delay has passed, by client-go's rules for
	 * {@code addAfter}. One round trip.
	 * @param encoded the item's encoding, checked
	 * @param priority its priority, checked
	 * @param delayNanos the delay, positive
	 * @param context its trace context, {@code null} for none
	 */
	void addAfter(String encoded, int priority, long delayNanos, String context);

	/**
	 * Reads how many items are ready now, shared by every handle. One round trip.
	 * @return the count
	 */
	int size();

	/**
	 * Reads the shared figures of the queue. One round trip.
	 * @return the figures
	 */
	Figures figures();

	/**
	 * Reads the ready items per priority, highest first, with the age of the first in
	 * line of each. One round trip.
	 * @return the levels
	 */
	List<Level> readyLevels();

	/**
	 * Returns the store's side of an operator's look into the queue. No store call.
	 * @return the driver, the same one each time
	 */
	InspectionDriver inspection();

	/**
	 * Describes where the store keeps the queue, for messages: the Redis server the queue
	 * last connected to, the PostgreSQL table. No store call.
	 * @return the description, or a placeholder before the first connection
	 */
	String server();

	/**
	 * Says what an operator should know that does not stop the queue, for health (such as
	 * another session holding back the table's cleanup). No store call.
	 * @return the warning, {@code null} for none
	 */
	default String warning() {
		return null;
	}

	/**
	 * Whether an add that failed while the handle shut down may be ignored, as every add
	 * after the shutdown is: only the store's own failure of a call that leaves the
	 * caller nothing to undo (not a bug, not an add inside the caller's transaction,
	 * which the failure aborted). No store call.
	 * @param failure what the add threw
	 * @return {@code true} to ignore it
	 */
	boolean ignorableAtShutDown(RuntimeException failure);

	/**
	 * The handle starts to shut down; its flag is not set yet, so no release of what the
	 * driver shares can have begun. Local, no store call.
	 */
	default void beforeShutDown() {
	}

	/**
	 * The handle is shut down: its flag is set, its consumers woken and the items they
	 * claimed ahead handed back (a drain waits only after this). The store stops what
	 * only a running handle needs (such as listening for notices) or wakes its timed
	 * work. Local, no store call.
	 */
	default void afterShutDown() {
	}

	/**
	 * How the handle's {@code toString} describes it: the store's class of handle, the
	 * queue's name and where it is kept.
	 * @return the description
	 */
	String description();

	/**
	 * The figures of a queue shared by every handle.
	 *
	 * @param depth the ready items
	 * @param processing the items being processed, by any handle
	 * @param waiting the items added with a delay that is not over yet
	 * @param addedWhileProcessing the items being processed that were added again
	 * @param headQueuedNanos how long the item next in line has been queued, 0 for none
	 * (or where the store does not tell)
	 */
	record Figures(int depth, int processing, int waiting, int addedWhileProcessing, long headQueuedNanos) {

		/**
		 * Returns client-go's depth: the items added and not handed out yet.
		 * @return {@code depth() + addedWhileProcessing()}
		 */
		public int pending() {
			return this.depth + this.addedWhileProcessing;
		}

	}

}
