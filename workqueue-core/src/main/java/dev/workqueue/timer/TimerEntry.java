package dev.workqueue.timer;

import dev.workqueue.internal.ItemTable;
import dev.workqueue.internal.KeyedEntry;

/**
 * One pending timer, and the only object a timer costs: it is at once the entry of the
 * wheel's key table (an {@link ItemTable}, which keeps the key and its hash in
 * {@link KeyedEntry}) and the node of a circular doubly-linked slot list of the
 * {@link HierarchicalWheel wheel} (through {@link #prev} and {@link #next}). Each slot
 * list has a sentinel entry whose key is {@code null}.
 * <p>
 * Layout with compressed oops: a 12-byte header, four references (16 bytes), one
 * {@code long} and one {@code int} make 40 bytes. The cached hash costs its 4 bytes on
 * purpose: without it every table probe and every resize reads each entry's key object,
 * one more cache miss per entry on large wheels.
 * <p>
 * Not thread-safe: every field is guarded by the timing wheel's lock. Once fired, an
 * entry has left the table and the wheel and {@link #next} chains the batch handed to the
 * executor, which reads it after the executor's own happens-before edge.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class TimerEntry<K, V> extends KeyedEntry<K> {

	V value;

	/** Due time in nanoseconds since the wheel's origin, never negative. */
	long dueNanos;

	/** Previous entry in its slot list; {@code null} while the entry is in no list. */
	TimerEntry<K, V> prev;

	/** Next entry in its slot list, or in its fired batch once it has fired. */
	TimerEntry<K, V> next;

	TimerEntry(K key, V value, long dueNanos) {
		// A sentinel has no key: hash 0, and it never enters the table.
		this(key, (key != null) ? key.hashCode() : 0, value, dueNanos);
	}

	TimerEntry(K key, int hash, V value, long dueNanos) {
		super(key, hash);
		this.value = value;
		this.dueNanos = dueNanos;
	}

	/** Creates the sentinel of an empty circular list. */
	static <K, V> TimerEntry<K, V> sentinel() {
		TimerEntry<K, V> sentinel = new TimerEntry<>(null, null, 0);
		sentinel.prev = sentinel;
		sentinel.next = sentinel;
		return sentinel;
	}

	boolean isLinked() {
		return this.prev != null;
	}

	/** Appends this unlinked entry at the tail of the list of {@code sentinel}. */
	void linkBefore(TimerEntry<K, V> sentinel) {
		TimerEntry<K, V> tail = sentinel.prev;
		this.prev = tail;
		this.next = sentinel;
		tail.next = this;
		sentinel.prev = this;
	}

	/** Removes this entry from its list, if it is in one. */
	void unlink() {
		if (this.prev != null) {
			this.prev.next = this.next;
			this.next.prev = this.prev;
			this.prev = null;
			this.next = null;
		}
	}

	/** Whether the list of this sentinel is empty. */
	boolean isEmptyList() {
		return this.next == this;
	}

	/**
	 * Moves every entry of this sentinel's list, in order, to the tail of the list of
	 * {@code target}, leaving this list empty. Constant time.
	 */
	void moveAllTo(TimerEntry<K, V> target) {
		if (isEmptyList()) {
			return;
		}
		TimerEntry<K, V> first = this.next;
		TimerEntry<K, V> last = this.prev;
		TimerEntry<K, V> tail = target.prev;
		tail.next = first;
		first.prev = tail;
		last.next = target;
		target.prev = last;
		this.next = this;
		this.prev = this;
	}

}
