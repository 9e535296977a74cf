package dev.workqueue.timer;

import java.util.function.Consumer;

/**
 * The timing wheel's key index: a hash table chained through the entries themselves
 * ({@link TimerEntry#tableNext}), so a timer needs no node object besides its entry.
 * <p>
 * A power-of-two bucket array that doubles when the load passes 3/4, so it holds 1.33 to
 * 2.67 buckets (5.3 to 10.7 bytes with compressed oops) per entry; at a million entries
 * it has 2<sup>21</sup> buckets, 8.4 bytes per entry. Each entry caches its key's hash,
 * so a probe compares hashes before calling {@code equals} and a resize never reads a
 * key. The array does not shrink while entries remain; {@link #clear()} releases it.
 * <p>
 * Not thread-safe: guarded by the timing wheel's lock.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class TimerTable<K, V> {

	private static final int INITIAL_CAPACITY = 16;

	private static final int MAX_CAPACITY = 1 << 30;

	private TimerEntry<K, V>[] buckets = newBuckets(INITIAL_CAPACITY);

	private int size;

	int size() {
		return this.size;
	}

	/** Returns the entry of {@code key}, or {@code null}. */
	TimerEntry<K, V> get(Object key) {
		int hash = hash(key);
		TimerEntry<K, V> entry = this.buckets[hash & (this.buckets.length - 1)];
		while (entry != null && !entry.hasKey(key, hash)) {
			entry = entry.tableNext;
		}
		return entry;
	}

	/** Adds {@code entry}, whose key must not be in the table. */
	void add(TimerEntry<K, V> entry) {
		if (this.size >= (this.buckets.length >>> 2) * 3 && this.buckets.length < MAX_CAPACITY) {
			resize(this.buckets.length << 1);
		}
		int index = entry.hash & (this.buckets.length - 1);
		entry.tableNext = this.buckets[index];
		this.buckets[index] = entry;
		this.size++;
	}

	/** Removes and returns the entry of {@code key}, or returns {@code null}. */
	TimerEntry<K, V> remove(Object key) {
		int hash = hash(key);
		int index = hash & (this.buckets.length - 1);
		TimerEntry<K, V> previous = null;
		TimerEntry<K, V> entry = this.buckets[index];
		while (entry != null && !entry.hasKey(key, hash)) {
			previous = entry;
			entry = entry.tableNext;
		}
		if (entry != null) {
			unchain(index, previous, entry);
		}
		return entry;
	}

	/** Removes this very entry, which must be in the table. */
	void remove(TimerEntry<K, V> entry) {
		int index = entry.hash & (this.buckets.length - 1);
		TimerEntry<K, V> previous = null;
		TimerEntry<K, V> current = this.buckets[index];
		while (current != entry) {
			previous = current;
			current = current.tableNext;
		}
		unchain(index, previous, entry);
	}

	/** Hands every entry to {@code action}, in no particular order. */
	void forEach(Consumer<TimerEntry<K, V>> action) {
		for (TimerEntry<K, V> head : this.buckets) {
			for (TimerEntry<K, V> entry = head; entry != null; entry = entry.tableNext) {
				action.accept(entry);
			}
		}
	}

	/** Removes every entry and releases the bucket array. */
	void clear() {
		for (TimerEntry<K, V> head : this.buckets) {
			TimerEntry<K, V> entry = head;
			while (entry != null) {
				TimerEntry<K, V> next = entry.tableNext;
				entry.tableNext = null;
				entry = next;
			}
		}
		this.buckets = newBuckets(INITIAL_CAPACITY);
		this.size = 0;
	}

	private void unchain(int index, TimerEntry<K, V> previous, TimerEntry<K, V> entry) {
		if (previous == null) {
			this.buckets[index] = entry.tableNext;
		}
		else {
			previous.tableNext = entry.tableNext;
		}
		entry.tableNext = null;
		this.size--;
	}

	private void resize(int capacity) {
		TimerEntry<K, V>[] resized = newBuckets(capacity);
		for (TimerEntry<K, V> head : this.buckets) {
			TimerEntry<K, V> entry = head;
			while (entry != null) {
				TimerEntry<K, V> next = entry.tableNext;
				int index = entry.hash & (capacity - 1);
				entry.tableNext = resized[index];
				resized[index] = entry;
				entry = next;
			}
		}
		this.buckets = resized;
	}

	/** The key's hash code with its high bits spread down, as cached in entries. */
	static int hash(Object key) {
		int hash = key.hashCode();
		// Keys whose hashes differ only in the high bits would otherwise share a bucket
		// in a small table.
		return hash ^ (hash >>> 16);
	}

	@SuppressWarnings("unchecked")
	private static <K, V> TimerEntry<K, V>[] newBuckets(int capacity) {
		return (TimerEntry<K, V>[]) new TimerEntry<?, ?>[capacity];
	}

}
