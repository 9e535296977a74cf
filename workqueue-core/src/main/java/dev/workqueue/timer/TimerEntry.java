package dev.workqueue.timer;

/**
 * One pending timer, and the only object a timer costs: it is at once the node of the
 * {@link TimerTable key table} (through {@link #tableNext}) and of a circular
 * doubly-linked slot list of the {@link HierarchicalWheel wheel} (through {@link #prev}
 * and {@link #next}). Each slot list has a sentinel entry whose key is {@code null}.
 * <p>
 * Layout with compressed oops: a 12-byte header, five references (20 bytes), one
 * {@code long} and one {@code int} make 44 bytes, 48 with alignment. The cached hash
 * costs those 8 bytes on purpose: without it every table probe and every resize reads
 * each chained entry's key object, one more cache miss per entry on large wheels.
 * <p>
 * Not thread-safe: every field is guarded by the timing wheel's lock. Once fired, an
 * entry has left the table and the wheel and {@link #next} chains the batch handed to the
 * executor, which reads it after the executor's own happens-before edge.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class TimerEntry<K, V> {

	final K key;

	/** The key's spread hash code ({@link TimerTable#hash}); 0 for a sentinel. */
	final int hash;

	V value;

	/** Due time in nanoseconds since the wheel's origin, never negative. */
	long dueNanos;

	/** Previous entry in its slot list; {@code null} while the entry is in no list. */
	TimerEntry<K, V> prev;

	/** Next entry in its slot list, or in its fired batch once it has fired. */
	TimerEntry<K, V> next;

	/** Next entry in the same bucket of the key table. */
	TimerEntry<K, V> tableNext;

	TimerEntry(K key, V value, long dueNanos) {
		this.key = key;
		this.hash = (key != null) ? TimerTable.hash(key) : 0;
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

	/** Whether this entry's key is {@code key}, whose spread hash is {@code hash}. */
	boolean hasKey(Object key, int hash) {
		return this.hash == hash && (this.key == key || this.key.equals(key));
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
