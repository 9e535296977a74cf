package dev.workqueue.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A hash set of {@link KeyedEntry entries} keyed by their item's
 * {@code equals}/{@code hashCode}: the index from item to state of the queues, and from
 * key to timer of the timing wheel. Internal: not part of the API, and may change in any
 * release.
 * <p>
 * <b>How it works.</b> Open addressing with linear probing, Fibonacci hashing of the hash
 * code each entry keeps, and backward-shift deletion (no tombstones). It doubles when
 * more than half full and (unless told not to) shrinks to about a quarter full when under
 * one eighth, so it costs 8 to 16 bytes per entry with compressed oops (a {@code HashMap}
 * costs about 40: a node plus its slot). A probe compares the kept hash before calling
 * {@code equals}, and moving or rehashing an entry never calls {@code hashCode}. No
 * operation allocates except resizing.
 * <p>
 * <b>Two layouts.</b> Up to 65,536 slots the table is one power-of-two array. Above, it
 * is a directory of segments, each a power-of-two array of at least that many slots: the
 * top bits of the mixed hash pick the segment, the next ones the home slot in it, and a
 * probe run wraps inside its segment. Why: G1 allocates an array of half a region or more
 * (512 KB with its smallest, 1 MB regions) as a humongous object, which is old from
 * birth, so every store of a new node into it at a random slot takes G1's slow post-write
 * barrier (a dirty card and a refinement enqueue): 0.5 to 3.7 µs per insert into one
 * array at a million entries, and about 100 ns into segments. A segment of 65,536 slots
 * (256 KB with compressed oops, 512 KB without, which only heaps with regions of 8 MB or
 * more need) is never humongous. The table that most queues keep stays one array, without
 * the directory's extra load. A segment fuller than half doubles the directory, every
 * segment split in two, when the table as a whole is more than a quarter full, as it is
 * unless the hash codes cluster; otherwise that segment alone doubles, so clustered hash
 * codes cost probes, as in one array, never a directory of empty segments.
 * <p>
 * <b>Concurrency.</b> Writes ({@link #putIfAbsent}, {@link #remove}, {@link #clear}) must
 * be serialised by the caller (a lock, or a single owner thread). {@link #get} may run
 * concurrently with a writer, without locking: slots are written with release and read
 * with acquire semantics, and a resized array or a new directory (copied on write, never
 * changed once published) is published through a volatile field, so a racing {@code get}
 * sees fully built entries, but it may miss an entry that is being moved or added, or
 * return one just removed. Callers that read without the lock must treat a miss as
 * "unknown" and check a returned entry's own state.
 *
 * @param <T> the item type
 * @param <E> the entry type
 */
public final class ItemTable<T, E extends KeyedEntry<T>> {

	/** The fewest slots of one segment, and the most of the one-array layout. */
	static final int SEGMENT_SLOTS = 1 << 16;

	private static final int MIN_CAPACITY = 16;

	private static final int GOLDEN_RATIO = 0x9E3779B9;

	private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(KeyedEntry[].class);

	/**
	 * The one array, or {@code null} while the table is segmented; replaced (volatile
	 * write) on resize, its elements accessed through {@link #SLOT}.
	 */
	private volatile KeyedEntry<?>[] slots = new KeyedEntry<?>[MIN_CAPACITY];

	/**
	 * The segments, a power of two of them (two or more), or {@code null} while the table
	 * is one array; replaced (volatile write), never changed once published. Their
	 * elements accessed through {@link #SLOT}.
	 */
	private volatile KeyedEntry<?>[][] segments;

	/** Entries per segment while segmented; writers only. */
	private int[] counts;

	/** Writers only. */
	private int size;

	/** Slots in all; writers only. */
	private int capacity = MIN_CAPACITY;

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
	public E get(Object item, int hash) {
		KeyedEntry<?>[] slots = this.slots;
		if (slots == null) {
			return getSegmented(item, hash);
		}
		return find(slots, home(hash, 0, slots.length), item, hash);
	}

	private E getSegmented(Object item, int hash) {
		KeyedEntry<?>[][] segments = this.segments;
		if (segments == null) {
			// Back to one array since this get read the field: a miss, as allowed.
			return null;
		}
		int bits = Integer.numberOfTrailingZeros(segments.length);
		KeyedEntry<?>[] segment = segments[segment(hash, bits)];
		return find(segment, home(hash, bits, segment.length), item, hash);
	}

	@SuppressWarnings("unchecked")
	private E find(KeyedEntry<?>[] slots, int home, Object item, int hash) {
		int mask = slots.length - 1;
		int i = home;
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
		KeyedEntry<?>[][] segments = null;
		int bits = 0;
		int segment = 0;
		if (slots == null) {
			segments = this.segments;
			bits = Integer.numberOfTrailingZeros(segments.length);
			segment = segment(entry.hash, bits);
			slots = segments[segment];
		}
		int mask = slots.length - 1;
		for (int i = home(entry.hash, bits, slots.length);; i = (i + 1) & mask) {
			KeyedEntry<?> present = slots[i];
			if (present == null) {
				SLOT.setRelease(slots, i, entry);
				this.size++;
				if (segments == null) {
					if (this.size > slots.length >>> 1) {
						resize(slots.length << 1);
					}
				}
				else if (++this.counts[segment] > slots.length >>> 1) {
					growSegmented(segments, segment);
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
		int bits = 0;
		int segment = 0;
		if (slots == null) {
			KeyedEntry<?>[][] segments = this.segments;
			bits = Integer.numberOfTrailingZeros(segments.length);
			segment = segment(entry.hash, bits);
			slots = segments[segment];
		}
		int mask = slots.length - 1;
		int hole = home(entry.hash, bits, slots.length);
		while (slots[hole] != entry) {
			hole = (hole + 1) & mask;
		}
		removeAt(slots, bits, segment, hole, shrink && this.shrinks);
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
		int bits = 0;
		int segment = 0;
		if (slots == null) {
			KeyedEntry<?>[][] segments = this.segments;
			bits = Integer.numberOfTrailingZeros(segments.length);
			segment = segment(hash, bits);
			slots = segments[segment];
		}
		int mask = slots.length - 1;
		for (int i = home(hash, bits, slots.length);; i = (i + 1) & mask) {
			KeyedEntry<?> entry = slots[i];
			if (entry == null) {
				return null;
			}
			if (entry.hash == hash && (entry.item == item || entry.item.equals(item))) {
				removeAt(slots, bits, segment, i, this.shrinks);
				return (E) entry;
			}
		}
	}

	/**
	 * Empties slot {@code index} of {@code slots} (the one array, or segment
	 * {@code segment} of a directory of {@code 1 << bits}).
	 */
	private void removeAt(KeyedEntry<?>[] slots, int bits, int segment, int index, boolean shrink) {
		int mask = slots.length - 1;
		int hole = index;
		// Backward shift: move later members of the probe run into the hole when the
		// hole lies between their home slot and where they sit, so that every entry
		// stays reachable from its home without crossing an empty slot.
		for (int i = (hole + 1) & mask; slots[i] != null; i = (i + 1) & mask) {
			KeyedEntry<?> candidate = slots[i];
			if (((i - home(candidate.hash, bits, slots.length)) & mask) >= ((i - hole) & mask)) {
				SLOT.setRelease(slots, hole, candidate);
				hole = i;
			}
		}
		SLOT.setRelease(slots, hole, (KeyedEntry<?>) null);
		this.size--;
		if (bits != 0) {
			this.counts[segment]--;
		}
		if (shrink) {
			trim();
		}
	}

	/**
	 * Shrinks the array if it is under one eighth full (unless the table was built not to
	 * shrink): for a caller that removed entries without shrinking. Writers only.
	 */
	public void trim() {
		int capacity = this.capacity;
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
	 * Returns the number of slots, in all segments, for tests of the memory bound.
	 * Writers only.
	 * @return the number of slots
	 */
	public int capacity() {
		return this.capacity;
	}

	/**
	 * Returns the number of segments, 1 for the one-array layout, for tests. Writers
	 * only.
	 * @return the number of segments
	 */
	int segmentCount() {
		return (this.slots != null) ? 1 : this.segments.length;
	}

	/**
	 * Hands every entry to {@code action}, in no particular order. Writers only; the
	 * action must not change the table.
	 * @param action receives each entry
	 */
	public void forEach(Consumer<? super E> action) {
		forEachWhile((entry) -> {
			action.accept(entry);
			return true;
		});
	}

	/**
	 * Returns every entry, in no particular order: a plain copy of the slots' references,
	 * no entry read. Writers only.
	 * @return the entries, in an array of {@link #size()}
	 */
	public KeyedEntry<?>[] entries() {
		KeyedEntry<?>[] entries = new KeyedEntry<?>[this.size];
		KeyedEntry<?>[] slots = this.slots;
		int n = (slots != null) ? copyIn(slots, entries, 0) : 0;
		if (slots == null) {
			for (KeyedEntry<?>[] segment : this.segments) {
				n = copyIn(segment, entries, n);
			}
		}
		return entries;
	}

	private static int copyIn(KeyedEntry<?>[] slots, KeyedEntry<?>[] into, int from) {
		int n = from;
		for (KeyedEntry<?> entry : slots) {
			if (entry != null) {
				into[n++] = entry;
			}
		}
		return n;
	}

	/**
	 * Hands entries to {@code action}, in no particular order, until it returns
	 * {@code false}. Writers only; the action must not change the table.
	 * @param action receives each entry, and tells whether to go on
	 * @return {@code true} if every entry was handed over, {@code false} if the action
	 * stopped the walk
	 */
	@SuppressWarnings("unchecked")
	public boolean forEachWhile(Predicate<? super E> action) {
		KeyedEntry<?>[] slots = this.slots;
		if (slots != null) {
			return forEachIn(slots, (Predicate<KeyedEntry<?>>) action);
		}
		for (KeyedEntry<?>[] segment : this.segments) {
			if (!forEachIn(segment, (Predicate<KeyedEntry<?>>) action)) {
				return false;
			}
		}
		return true;
	}

	private static boolean forEachIn(KeyedEntry<?>[] slots, Predicate<KeyedEntry<?>> action) {
		for (KeyedEntry<?> entry : slots) {
			if (entry != null && !action.test(entry)) {
				return false;
			}
		}
		return true;
	}

	/** Removes every entry and releases the array. Writers only. */
	public void clear() {
		this.slots = new KeyedEntry<?>[MIN_CAPACITY];
		this.segments = null;
		this.counts = null;
		this.capacity = MIN_CAPACITY;
		this.size = 0;
	}

	/**
	 * A segment got more than half full: doubles the directory if the table as a whole is
	 * more than a quarter full, else that segment alone (the hash codes cluster).
	 */
	private void growSegmented(KeyedEntry<?>[][] segments, int segment) {
		if (this.size > this.capacity >>> 2) {
			resize(SEGMENT_SLOTS * segments.length * 2);
			return;
		}
		int bits = Integer.numberOfTrailingZeros(segments.length);
		KeyedEntry<?>[] old = segments[segment];
		KeyedEntry<?>[][] copy = segments.clone();
		copy[segment] = rehash(old, bits, old.length << 1);
		this.capacity += old.length;
		// The volatile write publishes the new segment to lock-free readers.
		this.segments = copy;
	}

	/**
	 * Rebuilds the table with {@code capacity} slots: one array up to
	 * {@link #SEGMENT_SLOTS}, segments of that size above (a segment that gets more than
	 * half full while filling doubles on its own).
	 */
	private void resize(int capacity) {
		if (capacity <= SEGMENT_SLOTS) {
			KeyedEntry<?>[] slots = new KeyedEntry<?>[capacity];
			forEach((entry) -> place(slots, 0, entry));
			this.counts = null;
			this.capacity = capacity;
			// The volatile write publishes the filled array to lock-free readers, who
			// then no longer look at the segments.
			this.slots = slots;
			this.segments = null;
			return;
		}
		int count = capacity / SEGMENT_SLOTS;
		int bits = Integer.numberOfTrailingZeros(count);
		KeyedEntry<?>[][] segments = new KeyedEntry<?>[count][];
		for (int i = 0; i < count; i++) {
			segments[i] = new KeyedEntry<?>[SEGMENT_SLOTS];
		}
		int[] counts = new int[count];
		int[] grown = { 0 };
		forEach((entry) -> {
			int segment = segment(entry.hash, bits);
			KeyedEntry<?>[] slots = segments[segment];
			if (++counts[segment] > slots.length >>> 1) {
				grown[0] += slots.length;
				slots = rehash(slots, bits, slots.length << 1);
				segments[segment] = slots;
			}
			place(slots, bits, entry);
		});
		this.counts = counts;
		this.capacity = capacity + grown[0];
		// Segments first: a reader that sees no array finds them.
		this.segments = segments;
		this.slots = null;
	}

	/** A copy of {@code slots} with {@code length} slots. */
	private static KeyedEntry<?>[] rehash(KeyedEntry<?>[] slots, int bits, int length) {
		KeyedEntry<?>[] copy = new KeyedEntry<?>[length];
		for (KeyedEntry<?> entry : slots) {
			if (entry != null) {
				place(copy, bits, entry);
			}
		}
		return copy;
	}

	/** Puts an entry known to be absent into an array not yet published. */
	private static void place(KeyedEntry<?>[] slots, int bits, KeyedEntry<?> entry) {
		int mask = slots.length - 1;
		int i = home(entry.hash, bits, slots.length);
		while (slots[i] != null) {
			i = (i + 1) & mask;
		}
		slots[i] = entry;
	}

	/** The segment of {@code hash} in a directory of {@code 1 << bits}, bits > 0. */
	private static int segment(int hash, int bits) {
		return (hash * GOLDEN_RATIO) >>> -bits;
	}

	/**
	 * The home slot of {@code hash} in an array of {@code length} (a power of two): the
	 * bits of the mixed hash below the {@code bits} that picked the segment (none for the
	 * one array).
	 */
	private static int home(int hash, int bits, int length) {
		return ((hash * GOLDEN_RATIO) << bits) >>> Integer.numberOfLeadingZeros(length - 1);
	}

}
