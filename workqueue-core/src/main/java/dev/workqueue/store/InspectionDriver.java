package dev.workqueue.store;

import java.time.Instant;
import java.util.List;

import dev.workqueue.inspect.ItemState;
import dev.workqueue.inspect.ItemView;

/**
 * What a store does for an operator's look into a queue
 * ({@link dev.workqueue.inspect.QueueInspector}): bounded lists of items by state, one
 * item by its encoding, the given-up records, and the queue-wide pause. Every
 * {@link ItemView#text()} here is the item's encoding. Part of the shared-store engine,
 * implemented by store modules; may change before 1.0.
 * <p>
 * The handle checks the arguments and turns encodings into items; the driver only talks
 * to the store. Each method is one round trip (two at most), reads through an index with
 * a limit, and throws the store's unchecked exception when the store cannot be reached.
 * Thread-safe.
 */
public interface InspectionDriver {

	/**
	 * Names the store, as the console shows it. No store call.
	 * @return {@code redis} or {@code postgres}, say
	 */
	String backend();

	/**
	 * Names this handle as the store names holders of leases and of given-up records. No
	 * store call.
	 * @return the holder id
	 */
	String instance();

	/**
	 * Lists the items in one state, in the order of
	 * {@link dev.workqueue.inspect.QueueInspector#items}.
	 * @param state the state
	 * @param offset how many to skip, checked
	 * @param limit how many at most, checked
	 * @return the items
	 */
	List<ItemView> items(ItemState state, int offset, int limit);

	/**
	 * Finds one item by its encoding, in every state it is in: processing first, then
	 * ready, waiting, given up.
	 * @param encoded the encoding
	 * @return the item in each state, empty if the queue has none
	 */
	List<ItemView> find(String encoded);

	/**
	 * Counts the given-up records the queue keeps (records past their retention not
	 * counted, or swept first).
	 * @return the count
	 */
	int givenUpCount();

	/**
	 * Keeps a given-up record, replacing one of the same item, and trims the records to
	 * the queue's bound ({@link SharedQueueBuilder#givenUp}).
	 * @param encoded the item's encoding
	 * @param attempts its failed attempts
	 * @param reason why it was given up
	 */
	void keepGivenUp(String encoded, int attempts, String reason);

	/**
	 * Deletes a given-up record: whichever is kept, or only the one given up at a time.
	 * @param encoded the item's encoding
	 * @param givenUpAt when the record to delete was given up, as the views show it
	 * (exact to the store's precision), or {@code null} for whichever is kept
	 * @return {@code false} if the queue kept none for it, or another than asked
	 */
	boolean deleteGivenUp(String encoded, Instant givenUpAt);

	/**
	 * Sets or clears the queue's pause flag in the store, which every instance's claims
	 * read: while it is set, a claim hands out nothing. Clearing it wakes the waiting
	 * consumers of every instance, as an add does.
	 * @param paused the flag
	 */
	void pause(boolean paused);

	/**
	 * Reads the queue's pause flag.
	 * @return {@code true} while paused
	 */
	boolean paused();

}
