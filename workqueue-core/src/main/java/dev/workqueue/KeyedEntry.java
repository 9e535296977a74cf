package dev.workqueue;

/**
 * An entry of an {@link ItemTable}: something that stands for one item, with the item's
 * hash code computed once, by the thread that creates the entry.
 *
 * @param <T> the item type
 */
abstract class KeyedEntry<T> {

	final T item;

	final int hash;

	KeyedEntry(T item) {
		this(item, item.hashCode());
	}

	KeyedEntry(T item, int hash) {
		this.item = item;
		this.hash = hash;
	}

}
