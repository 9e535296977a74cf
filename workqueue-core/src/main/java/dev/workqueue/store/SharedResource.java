package dev.workqueue.store;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A registry of resources shared by key across a JVM (a connection per client, a listener
 * thread per database, a keeper per table): {@link #acquire} hands out the one resource
 * of a key, opening it on first use and counting a reference, and the {@link #release} of
 * its last reference takes it out and closes it. A resource may also be {@linkplain #use
 * used without counting}, for callers without a lifecycle of their own; such a resource
 * stays until it is {@linkplain #evict evicted} or its last counted reference is
 * released.
 * <p>
 * The promises: a resource is closed once, only when no reference is left, and never
 * handed out after that; an acquire after the last release opens a new one; when every
 * reference is released (and every uncounted use evicted), no entry is left. An opener
 * that throws leaves no entry, and its exception reaches the caller.
 * <p>
 * <b>Concurrency.</b> One lock guards the entries and their counts. The opener runs under
 * it, so that two callers of one key never open two resources: an opener must be quick
 * (build an object, start a thread), never wait for a server. The closer runs outside it,
 * on the thread of the last release, after the entry left: a slow close (a thread to
 * join) holds back no other key, and an acquire of the same key meanwhile opens a new
 * resource beside the closing one. Resources are counted by identity, so an opener
 * returns a new object each time. Thread-safe; blocks only for the lock, an opener, and
 * on the last release, the closer.
 * <p>
 * Part of the shared-store SPI: it may change before 1.0.
 *
 * @param <K> the key, compared with {@code equals}
 * @param <R> the resource
 */
public final class SharedResource<K, R> {

	private final Consumer<? super R> closer;

	private final Object lock = new Object();

	/** The resource each key finds; guarded by lock. */
	private final Map<K, Entry<K, R>> listed = new HashMap<>();

	/**
	 * The resources with at least one counted reference, listed or evicted; guarded by
	 * lock.
	 */
	private final Map<R, Entry<K, R>> referenced = new IdentityHashMap<>();

	/**
	 * Makes a registry.
	 * @param closer closes a resource once its last reference is released; its exception
	 * reaches the caller of that release, the entry being gone already
	 */
	public SharedResource(Consumer<? super R> closer) {
		this.closer = Objects.requireNonNull(closer, "closer");
	}

	/**
	 * Returns the resource of {@code key}, opening it if there is none, and counts one
	 * reference to it; pair each call with {@link #release}.
	 * @param key the key
	 * @param opener makes the resource of a key; called under the lock
	 * @return the resource
	 * @throws RuntimeException what the opener threw; nothing is counted then
	 */
	public R acquire(K key, Function<? super K, ? extends R> opener) {
		synchronized (this.lock) {
			Entry<K, R> entry = find(key, opener);
			if (entry.references++ == 0) {
				this.referenced.put(entry.resource, entry);
			}
			return entry.resource;
		}
	}

	/**
	 * Returns the resource of {@code key}, opening it if there is none, without counting
	 * a reference: the resource stays until {@link #evict} takes it out or the last
	 * counted reference to it is released.
	 * @param key the key
	 * @param opener makes the resource of a key; called under the lock
	 * @return the resource
	 * @throws RuntimeException what the opener threw
	 */
	public R use(K key, Function<? super K, ? extends R> opener) {
		synchronized (this.lock) {
			return find(key, opener).resource;
		}
	}

	/**
	 * Gives back one reference; the last one takes the resource out, if it is still
	 * listed, and closes it.
	 * @param resource a resource {@link #acquire} returned
	 * @throws IllegalStateException if the resource has no reference left
	 */
	public void release(R resource) {
		synchronized (this.lock) {
			Entry<K, R> entry = this.referenced.get(resource);
			if (entry == null) {
				throw new IllegalStateException(resource + " released more often than acquired");
			}
			if (--entry.references > 0) {
				return;
			}
			this.referenced.remove(resource);
			this.listed.remove(entry.key, entry);
		}
		this.closer.accept(resource);
	}

	/**
	 * Takes a resource out, so that its key finds a new one, without closing it: its
	 * counted references keep it, and the last release closes it.
	 * @param key its key
	 * @param resource the resource, which may have been replaced meanwhile
	 * @return whether it was listed under the key, and is not any more
	 */
	public boolean evict(K key, R resource) {
		return evict(key, resource, false);
	}

	/**
	 * Takes a resource out, as {@link #evict} does, if nobody counts a reference to it.
	 * @param key its key
	 * @param resource the resource, which may have been replaced meanwhile
	 * @return whether it was listed under the key without references, and is not any more
	 */
	public boolean evictUnused(K key, R resource) {
		return evict(key, resource, true);
	}

	private boolean evict(K key, R resource, boolean unused) {
		synchronized (this.lock) {
			Entry<K, R> entry = this.listed.get(key);
			return entry != null && entry.resource == resource && (!unused || entry.references == 0)
					&& this.listed.remove(key, entry);
		}
	}

	/**
	 * Returns the resource {@code key} finds now, without opening or counting one.
	 * @param key the key
	 * @return the resource, or {@code null} if there is none
	 */
	public R peek(K key) {
		synchronized (this.lock) {
			Entry<K, R> entry = this.listed.get(key);
			return (entry != null) ? entry.resource : null;
		}
	}

	/** The entry of {@code key}, opened if there is none; under the lock. */
	private Entry<K, R> find(K key, Function<? super K, ? extends R> opener) {
		Objects.requireNonNull(key, "key");
		Entry<K, R> entry = this.listed.get(key);
		if (entry == null) {
			// Not computeIfAbsent: an opener that uses this registry for another key
			// must not change the map under a computation.
			R opened = Objects.requireNonNull(opener.apply(key), "the opener returned null");
			entry = new Entry<>(key, opened);
			this.listed.put(key, entry);
		}
		return entry;
	}

	/** A resource, its key and its counted references; guarded by the lock. */
	private static final class Entry<K, R> {

		private final K key;

		private final R resource;

		private int references;

		Entry(K key, R resource) {
			this.key = key;
			this.resource = resource;
		}

	}

}
