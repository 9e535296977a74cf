package dev.workqueue.internal;

/**
 * An entry of an {@link ItemTable}: something that stands for one item, with the item's
 * hash code computed once, by the thread that creates the entry. Internal: not part of
 * the API, and may change in any release.
 *
 * @param <T> the item type
 */
public abstract class KeyedEntry<T> {

	/** The item; {@code null} only in entries never put in a table (list sentinels). */
	public final T item;

	/** {@code item.hashCode()}, computed once. */
	public final int hash;

	/**
	 * Creates an entry for {@code item}, reading its hash code now.
	 * @param item the item
	 */
	protected KeyedEntry(T item) {
		this(item, item.hashCode());
	}

	/**
	 * Creates an entry for {@code item} whose hash code is known.
	 * @param item the item
	 * @param hash its hash code
	 */
	protected KeyedEntry(T item, int hash) {
		this.item = item;
		this.hash = hash;
	}

}
