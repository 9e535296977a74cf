package dev.workqueue.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * A hash set of {@link KeyedEntry entries} keyed by their item's
 * {@code equals}/{@code hashCode}: the index from item to state of the queues, and from
 * key to timer of the timing wheel. Internal: not part of the API, and may change in any
 * release.
 * <p>
 * <b>How it works.</b> Open addressing with linear probing over one power-of-two array of
 * entry references, Fibonacci hashing of the hash code each entry keeps, and
 * backward-shift deletion (no tombstones). It doubles when more than half full and
 * (unless told not to) shrinks to about a quarter full when under one eighth, so it costs
 * 8 to 16 bytes per entry with compressed oops (a {@code HashMap} costs about 40: a node
 * plus its slot). A probe compares the kept hash before calling {@code equals}, and
 * moving or rehashing an entry never calls {@code hashCode}. No operation allocates
 * except resizing.
 * <p>
 * <b>Concurrency.</b> Writes ({@link #putIfAbsent}, {@link #remove}, {@link #clear}) must
 * be serialised by the caller (a lock, or a single owner thread). {@link #get} may run
 * concurrently with a writer, without locking: slots are written with release and read
 * with acquire semantics and a resized array is published through a volatile field, so a
 * racing {@code get} sees fully built entries, but it may miss an entry that is being
 * moved or added, or return one just removed. Callers that read without the lock must
 * treat a miss as "unknown" and check a returned entry's own state.
 *
 * @param <T> the item type
 * @param <E> the entry type
 */
public final class ItemTable<T, E extends KeyedEntry<T>> {

	private static final int MIN_CAPACITY = 16;

	private static final int GOLDEN_RATIO = 0x9E3779B9;

	private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(KeyedEntry[].class);

	/**
	 * Replaced (volatile write) on resize; its elements accessed through {@link #SLOT}.
	 */
	private volatile KeyedEntry<?>[] slots = new KeyedEntry<?>[MIN_CAPACITY];

	/** Writers only. */
	private int size;

	/** Whether removals shrink the array. */
	private final boolean shrinks;

	/**
	 * Creates a table that shrinks when nearly empty, as a queue's index, which empties
	 * whenever its queue does, wants.
	 */
	public ItemTable() {
		this(true);
	}

	/**
	 * Creates a table.
	 * @param shrinks whether removals shrink the array below one eighth full; a table
	 * that is emptied in bulk and refilled (the timing wheel's) saves the rehashing by
	 * keeping its array until {@link #clear()}
	 */
	public ItemTable(boolean shrinks) {
		this.shrinks = shrinks;
	}

	/**
	 * Returns the entry for {@code item}. Safe without the writers' lock, with the
	 * caveats in the class description.
	 * @param item the item
	 * @return its entry, or {@code null}
	 */
	public E get(Object item) {
		return get(item, item.hashCode());
	}

	/**
	 * Same as {@link #get(Object)}, for a caller that has the item's hash code already.
	 * @param item the item
	 * @param hash {@code item.hashCode()}
	 * @return its entry, or {@code null}
	 */
	@SuppressWarnings("unchecked")
	public E get(Object item, int hash) {
		KeyedEntry<?>[] slots = this.slots;
		int mask = slots.length - 1;
		int i = home(hash, slots.length);
		// Bounded: a reader racing with writers could otherwise chase moving entries.
		for (int probes = 0; probes < slots.length; probes++) {
			KeyedEntry<?> entry = (KeyedEntry<?>) SLOT.getAcquire(slots, i);
			if (entry == null) {
				return null;
			}
			if (entry.hash == hash && (entry.item == item || entry.item.equals(item))) {
				return (E) entry;
			}
			i = (i + 1) & mask;
		}
		return null;
	}

	/**
	 * Adds {@code entry} unless an entry for an equal item is present. Writers only.
	 * @param entry the entry to add
	 * @return the present entry for the same item, or {@code null} if {@code entry} was
	 * added
	 */
	@SuppressWarnings("unchecked")
	public E putIfAbsent(E entry) {
		KeyedEntry<?>[] slots = this.slots;
		int mask = slots.length - 1;
		for (int i = home(entry.hash, slots.length);; i = (i + 1) & mask) {
			KeyedEntry<?> present = slots[i];
			if (present == null) {
				SLOT.setRelease(slots, i, entry);
				if (++this.size > slots.length >>> 1) {
					resize(slots.length << 1);
				}
				return null;
			}
			if (present.hash == entry.hash && (present.item == entry.item || present.item.equals(entry.item))) {
				return (E) present;
			}
		}
	}

	/**
	 * Removes {@code entry}, which must be present (found by identity). Writers only.
	 * @param entry the entry to remove
	 */
	public void remove(E entry) {
		remove(entry, this.shrinks);
	}

	/**
	 * Removes {@code entry}, which must be present (found by identity), shrinking the
	 * array only if {@code shrink} says so: a caller that knows the table will fill up
	 * again soon (its queue has items waiting to come back) keeps the capacity. Writers
	 * only.
	 * @param entry the entry to remove
	 * @param shrink whether the array may shrink (never, for a table built not to)
	 */
	public void remove(E entry, boolean shrink) {
		KeyedEntry<?>[] slots = this.slots;
		int mask = slots.length - 1;
		int hole = home(entry.hash, slots.length);
		while (slots[hole] != entry) {
			hole = (hole + 1) & mask;
		}
		removeAt(slots, hole, shrink && this.shrinks);
	}

	/**
	 * Removes the entry of {@code item}, if any, in one probe. Writers only.
	 * @param item the item
	 * @return the removed entry, or {@code null}
	 */
	@SuppressWarnings("unchecked")
	public E removeItem(Object item) {
		int hash = item.hashCode();
		KeyedEntry<?>[] slots = this.slots;
		int mask = slots.length - 1;
		for (int i = home(hash, slots.length);; i = (i + 1) & mask) {
			KeyedEntry<?> entry = slots[i];
			if (entry == null) {
				return null;
			}
			if (entry.hash == hash && (entry.item == item || entry.item.equals(item))) {
				removeAt(slots, i, this.shrinks);
				return (E) entry;
			}
		}
	}

	private void removeAt(KeyedEntry<?>[] slots, int index, boolean shrink) {
		int mask = slots.length - 1;
		int hole = index;
		// Backward shift: move later members of the probe run into the hole when the
		// hole lies between their home slot and where they sit, so that every entry
		// stays reachable from its home without crossing an empty slot.
		for (int i = (hole + 1) & mask; slots[i] != null; i = (i + 1) & mask) {
			KeyedEntry<?> candidate = slots[i];
			if (((i - home(candidate.hash, slots.length)) & mask) >= ((i - hole) & mask)) {
				SLOT.setRelease(slots, hole, candidate);
				hole = i;
			}
		}
		SLOT.setRelease(slots, hole, (KeyedEntry<?>) null);
		this.size--;
		if (shrink) {
			trim();
		}
	}

	/**
	 * Shrinks the array if it is under one eighth full (unless the table was built not to
	 * shrink): for a caller that removed entries without shrinking. Writers only.
	 */
	public void trim() {
		int capacity = this.slots.length;
		if (this.shrinks && this.size < capacity >>> 3 && capacity > MIN_CAPACITY) {
			// Straight to about a quarter full: a table that kept its capacity for
			// a while may be far too large by now, and halving it step by step
			// would allocate every intermediate array.
			resize(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, this.size * 4 - 1)) << 1));
		}
	}

	/**
	 * Returns the number of entries. Writers only.
	 * @return the number of entries
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Returns the number of slots, for tests of the memory bound. Writers only.
	 * @return the number of slots
	 */
	public int capacity() {
		return this.slots.length;
	}

	/**
	 * Hands every entry to {@code action}, in no particular order. Writers only; the
	 * action must not change the table.
	 * @param action receives each entry
	 */
	@SuppressWarnings("unchecked")
	public void forEach(Consumer<? super E> action) {
		for (KeyedEntry<?> entry : this.slots) {
			if (entry != null) {
				action.accept((E) entry);
			}
		}
	}

	/** Removes every entry and releases the array. Writers only. */
	public void clear() {
		this.slots = new KeyedEntry<?>[MIN_CAPACITY];
		this.size = 0;
	}

	private void resize(int capacity) {
		KeyedEntry<?>[] old = this.slots;
		KeyedEntry<?>[] slots = new KeyedEntry<?>[capacity];
		int mask = capacity - 1;
		for (KeyedEntry<?> entry : old) {
			if (entry != null) {
				int i = home(entry.hash, capacity);
				while (slots[i] != null) {
					i = (i + 1) & mask;
				}
				slots[i] = entry;
			}
		}
		// The volatile write publishes the filled array to lock-free readers.
		this.slots = slots;
	}

	/** The top bits of the mixed hash: {@code capacity} is a power of two. */
	private static int home(int hash, int capacity) {
		return (hash * GOLDEN_RATIO) >>> Integer.numberOfLeadingZeros(capacity - 1);
	}

}
