package dev.workqueue;

/**
 * Turns items into the strings that stand for them in a shared store (Redis, PostgreSQL),
 * and back. The string is the item's identity across every instance that shares a queue:
 * equal items must encode to the same string, and different items to different strings
 * (as client-go's string keys, {@code namespace/name}).
 *
 * @param <T> the item type
 */
public interface ItemCodec<T> {

	/**
	 * Encodes an item.
	 * @param item the item, not {@code null}
	 * @return its identity in the store
	 */
	String encode(T item);

	/**
	 * Decodes what {@link #encode} produced.
	 * @param encoded the string read from the store
	 * @return the item
	 * @throws RuntimeException if {@code encoded} cannot be read; a shared queue moves
	 * such a payload out of the queue, into its given-up items with the reason
	 * ({@link dev.workqueue.inspect.QueueInspector})
	 */
	T decode(String encoded);

	/**
	 * Returns the codec of string items: each string stands for itself. Stores keep
	 * strings as UTF-8, so a string with a lone surrogate (half of a UTF-16 pair) is
	 * refused with an {@link IllegalArgumentException}: every other string comes back
	 * exactly, and two different strings never become one item.
	 * @return the identity codec
	 */
	static ItemCodec<String> strings() {
		return StringCodec.INSTANCE;
	}

}
