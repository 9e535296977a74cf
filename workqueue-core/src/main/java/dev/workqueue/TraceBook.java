package dev.workqueue;

import java.util.Arrays;
import java.util.List;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;
import dev.workqueue.spi.ItemTrace;

/**
 * The trace contexts of the items of one {@link DelayingWorkQueue} that have any: a side
 * table beside the node table, so that an item added with no context costs not a byte
 * more (its node keeps its size) and a queue without a
 * {@link dev.workqueue.spi.TraceContextSource} has no book at all. An entry lives from
 * the first add of its item that carries a context to the item's next hand-out, which
 * takes it (keeping only the parent while a delayed add of the item is pending: that
 * delay brings the item back with it); the queue forgets it with the node otherwise.
 * <p>
 * Which context is the parent is the queue's call ({@code first}: the first effective add
 * since the item was last handed out), since it depends on the node's state; the book
 * keeps the first {@value ItemTrace#MAX_LINKS} links and drops the rest.
 * <p>
 * Not thread-safe: guarded by the queue's lock.
 *
 * @param <T> the item type
 */
final class TraceBook<T> {

	private final ItemTable<T, Entry<T>> entries = new ItemTable<>();

	/**
	 * Stores the context of one add of an item.
	 * @param item the item
	 * @param hash its hash code
	 * @param context the context, storable
	 * @param first whether the add is the item's first effective one since it was last
	 * handed out: its context is then the parent, else a link
	 */
	void add(T item, int hash, String context, boolean first) {
		Entry<T> entry = this.entries.get(item, hash);
		if (entry == null) {
			entry = new Entry<>(item, hash);
			this.entries.putIfAbsent(entry);
		}
		if (first && entry.parent == null && entry.linkCount == 0) {
			entry.parent = context;
		}
		else if (entry.linkCount < ItemTrace.MAX_LINKS) {
			if (entry.links == null) {
				entry.links = new String[2];
			}
			else if (entry.linkCount == entry.links.length) {
				entry.links = Arrays.copyOf(entry.links, ItemTrace.MAX_LINKS);
			}
			entry.links[entry.linkCount++] = context;
		}
	}

	/**
	 * Takes the contexts of a node being handed out. While a delay of the node is
	 * pending, its parent stays for the hand-out that the delay brings.
	 * @param node the node handed out
	 * @return its contexts, or {@code null} if it has none
	 */
	ItemTrace handOut(Node<T> node) {
		Entry<T> entry = this.entries.get(node.item, node.hash);
		if (entry == null) {
			return null;
		}
		List<String> links = (entry.linkCount == 0) ? List.of()
				: Arrays.asList(entry.links).subList(0, entry.linkCount);
		ItemTrace trace = new ItemTrace(entry.parent, links);
		if (node.isWaiting() && entry.parent != null) {
			entry.links = null;
			entry.linkCount = 0;
		}
		else {
			this.entries.remove(entry);
		}
		return trace;
	}

	/**
	 * Forgets the contexts of a node that leaves the queue without being handed out
	 * again.
	 * @param node the node
	 */
	void forget(Node<T> node) {
		Entry<T> entry = this.entries.get(node.item, node.hash);
		if (entry != null) {
			this.entries.remove(entry);
		}
	}

	/** Returns how many items have contexts. */
	int size() {
		return this.entries.size();
	}

	/** One item's contexts. */
	private static final class Entry<T> extends KeyedEntry<T> {

		/** The first effective add's context, or {@code null}. */
		String parent;

		/** The links, {@code linkCount} of them; {@code null} until the first. */
		String[] links;

		int linkCount;

		Entry(T item, int hash) {
			super(item, hash);
		}

	}

}
