package dev.workqueue.inspect;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import dev.workqueue.ItemCodec;

/**
 * An operator's look into one queue and its hands on it, on every backend: bounded lists
 * of its items by state, one item found by its text, the given-up items it keeps, and a
 * pause of the whole queue. Every queue built by {@code WorkQueues},
 * {@code RedisWorkQueues} and {@code PostgresWorkQueues} has it, found with
 * {@code queue.capability(QueueInspector.class)}; the console is written against it
 * alone.
 * <p>
 * <b>Costs.</b> Every list is read through an index with a limit (a shared store: one
 * round trip; a queue of one process: under its lock, in time that grows with
 * {@code offset + limit}; the processing items of a queue without metrics, which does not
 * date its hand-outs, by a walk of its items that stops once the page is full). Deep
 * pages cost more than the first, so pages reaching beyond {@link #MAX_DEPTH} are
 * refused: find one item by its text with {@link #find}. A find by text on a queue of one
 * process without a codec compares every item's text, outside the queue's lock.
 * <p>
 * <b>Given-up items</b> are kept per queue, at most {@code keep} of them for at most
 * {@code retention} (the builders' {@code givenUp} option; 1000 for 7 days unless told),
 * the newest kept when there are more; on a shared store they are kept in the store and
 * shared by every instance. An item given up again replaces its earlier record.
 * <p>
 * <b>Pause.</b> A paused queue hands out no item: {@code get} and {@code poll} wait as if
 * it were empty, on every instance of a shared queue (a flag in the store that each claim
 * reads), until it is resumed. Adds, dones and everything else go on. Items a shared
 * instance claimed ahead for its waiting workers before the pause are still handed out.
 * <p>
 * Thread-safe. On a shared store each method is one or two round trips and throws the
 * store's unchecked exception when it cannot be reached.
 */
public interface QueueInspector {

	/** The most items one list returns. */
	int MAX_LIMIT = 1000;

	/**
	 * The deepest a list reaches: {@code offset + limit} at most. Deeper pages are
	 * refused, on every backend, so that no look holds a queue (its lock, or the store)
	 * for long; one item is found by its text with {@link #find}.
	 */
	int MAX_DEPTH = 10_000;

	/**
	 * Returns the backend that keeps the queue.
	 * @return {@code memory}, {@code redis} or {@code postgres}
	 */
	String backend();

	/**
	 * Returns which instance answers: this process, as shared stores name their holders.
	 * @return the instance's name
	 */
	String instance();

	/**
	 * Lists the items in one state: the ready ones in hand-out order, the processing ones
	 * by when they were handed out (oldest first), the waiting ones by due time (soonest
	 * first), the given-up ones newest first.
	 * @param state the state
	 * @param offset how many to skip, from 0
	 * @param limit how many at most, from 1 to {@link #MAX_LIMIT}, with
	 * {@code offset + limit} at most {@link #MAX_DEPTH}
	 * @return the items, at most {@code limit}
	 * @throws IllegalArgumentException naming {@code offset} or {@code limit} when out of
	 * range (naming {@code offset} for a page deeper than {@link #MAX_DEPTH})
	 */
	List<ItemView> items(ItemState state, int offset, int limit);

	/**
	 * Finds one item by its exact text, in every state it is in (an item being processed
	 * may also be queued again, and an item given up may have been added since).
	 * @param text the item's text, as {@link ItemView#text()} gives it
	 * @return the item in each state it is in, processing first, then ready, waiting,
	 * given up; empty if the queue has no such item
	 */
	List<ItemView> find(String text);

	/**
	 * Returns how many given-up items the queue keeps now.
	 * @return the count
	 */
	int givenUpCount();

	/**
	 * Keeps a record of an item given up on, as a worker does when its retries run out.
	 * @param item the item, of the queue's type, not {@code null}
	 * @param attempts its failed attempts, from 0
	 * @param reason why the last attempt failed, as text (a stack trace is not kept), not
	 * {@code null}
	 * @throws NullPointerException naming {@code item} or {@code reason} when null
	 * @throws IllegalArgumentException naming {@code attempts} when negative
	 */
	void keepGivenUp(Object item, int attempts, String reason);

	/**
	 * Whether any text can be turned back into an item of the queue: the queue has a
	 * codec. Then a console may offer to add an item typed by an operator.
	 * @return {@code true} if it can
	 */
	boolean readsText();

	/**
	 * Returns the item a text stands for: decoded by the queue's codec where it has one;
	 * on a queue of one process without a codec, the item in the queue or in its given-up
	 * records whose text this is (found as {@link #find} finds it).
	 * @param text the item's text
	 * @return the item, empty if none can be had
	 * @throws IllegalArgumentException naming {@code text} when the codec cannot decode
	 * it
	 */
	Optional<Object> item(String text);

	/**
	 * Takes a given-up item out of the records, to send it through again: the caller then
	 * forgets its history and adds it.
	 * @param text the given-up item's text
	 * @return the item, removed from the records; empty if no given-up item has that text
	 * @throws IllegalArgumentException naming {@code text} when the record's payload
	 * cannot be decoded (an item given up because of that); the record is kept
	 */
	Optional<Object> takeGivenUp(String text);

	/**
	 * Deletes a given-up item's record.
	 * @param text the given-up item's text
	 * @return {@code false} if no given-up item has that text
	 */
	boolean deleteGivenUp(String text);

	/**
	 * Deletes a given-up item's record if it is still the one given up at
	 * {@code givenUpAt}, as {@link #items} or {@link #find} showed it: the record of a
	 * give-up since (the item sent through again and given up again) stays. A re-add
	 * deletes the record it sent through this way, after its add.
	 * <p>
	 * The default reads the record with {@link #find}, then deletes it: the built-in
	 * inspectors compare and delete in one step.
	 * @param text the given-up item's text
	 * @param givenUpAt when the record to delete was given up
	 * @return {@code false} if no given-up item has that text, or its record is another
	 */
	default boolean deleteGivenUp(String text, Instant givenUpAt) {
		Objects.requireNonNull(givenUpAt, "givenUpAt");
		return find(text).stream().anyMatch((view) -> view.state() == ItemState.GIVEN_UP && view.at().equals(givenUpAt))
				&& deleteGivenUp(text);
	}

	/**
	 * Pauses the queue: no item is handed out, on any instance, until {@link #resume()}.
	 */
	void pause();

	/**
	 * Resumes the queue and wakes its waiting consumers, on every instance.
	 */
	void resume();

	/**
	 * Whether the queue is paused.
	 * @return {@code true} while paused
	 */
	boolean paused();

	/**
	 * Checks the page arguments of {@link #items}, as every implementation does.
	 * @param offset how many to skip, from 0
	 * @param limit how many at most, from 1 to {@link #MAX_LIMIT}, with
	 * {@code offset + limit} at most {@link #MAX_DEPTH}
	 * @throws IllegalArgumentException naming {@code offset} or {@code limit} when out of
	 * range
	 */
	static void checkPage(int offset, int limit) {
		if (offset < 0) {
			throw new IllegalArgumentException("offset must not be negative, was " + offset);
		}
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException("limit must be from 1 to " + MAX_LIMIT + ", was " + limit);
		}
		if ((long) offset + limit > MAX_DEPTH) {
			throw new IllegalArgumentException("offset + limit must be at most " + MAX_DEPTH
					+ " (deeper pages are refused: find one item by its text), was " + offset + " + " + limit);
		}
	}

	/**
	 * Checks the arguments of {@link #keepGivenUp}, as every implementation does before
	 * it keeps anything.
	 * @param item the item
	 * @param attempts its failed attempts
	 * @param reason why the last attempt failed
	 * @throws NullPointerException naming {@code item} or {@code reason} when null
	 * @throws IllegalArgumentException naming {@code attempts} when negative
	 */
	static void checkGivenUp(Object item, int attempts, String reason) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(reason, "reason");
		if (attempts < 0) {
			throw new IllegalArgumentException("attempts must not be negative, was " + attempts);
		}
	}

	/**
	 * Turns a text back into an item with a queue's codec, as {@link #item} and
	 * {@link #takeGivenUp} do.
	 * @param <T> the item type
	 * @param codec the queue's codec
	 * @param text the item's text
	 * @return the item
	 * @throws IllegalArgumentException naming {@code text} when the codec cannot decode
	 * it
	 */
	static <T> T decode(ItemCodec<T> codec, String text) {
		try {
			return Objects.requireNonNull(codec.decode(text), "codec.decode(text)");
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("text cannot be decoded by the queue's codec: " + ex.getMessage(), ex);
		}
	}

}
