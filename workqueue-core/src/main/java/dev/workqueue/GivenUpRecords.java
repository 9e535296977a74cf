package dev.workqueue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.workqueue.inspect.GivenUpBound;
import dev.workqueue.time.Clock;

/**
 * The given-up items an in-memory queue keeps for its
 * {@link dev.workqueue.inspect.QueueInspector}: at most {@code keep} records, each for
 * less than {@code retention} after it was given up (on the queue's clock), the newest
 * kept when there are more. Keyed by item: an item given up again replaces its record,
 * which becomes the newest. A record keeps the item itself, so that it can be sent
 * through again without a codec; its reason is cut to {@value #MAX_REASON_CHARS}
 * characters, so that memory stays bounded by {@code keep}.
 * <p>
 * <b>How it works.</b> A hash map from item to record, and the records linked from the
 * oldest to the newest. Keeping, taking and deleting cost O(1); the records past their
 * retention are dropped from the oldest end before each call (the given-up times grow
 * along the list, as the clock never goes back); a page, newest first, walks from the
 * newest end in O(offset + limit). A scan by text is O(n).
 * <p>
 * Thread-safe: every method holds this object's monitor, apart from the queue's lock
 * (never taken while holding it).
 *
 * @param <T> the item type
 */
final class GivenUpRecords<T> {

	/** The longest reason kept, in characters. */
	static final int MAX_REASON_CHARS = 2000;

	private final int keep;

	private final long retentionNanos;

	private final Clock clock;

	/** Guarded by this. */
	private final Map<T, Link<T>> links = new HashMap<>();

	/** Guarded by this. */
	private Link<T> oldest;

	/** Guarded by this. */
	private Link<T> newest;

	GivenUpRecords(GivenUpBound bound, Clock clock) {
		this.keep = bound.keep();
		this.retentionNanos = bound.retention().toNanos();
		this.clock = clock;
	}

	/**
	 * Keeps a record of {@code item}, replacing its earlier one, and drops the oldest
	 * beyond the bound.
	 * @param item the item
	 * @param attempts its failed attempts
	 * @param reason why it was given up, or {@code null}
	 */
	synchronized void keep(T item, int attempts, String reason) {
		if (this.keep == 0) {
			return;
		}
		long nowNanos = this.clock.nanoTime();
		expire(nowNanos);
		unlink(this.links.remove(item));
		String kept = (reason != null && reason.length() > MAX_REASON_CHARS) ? reason.substring(0, MAX_REASON_CHARS)
				: reason;
		Link<T> link = new Link<>(new GivenUp<>(item, attempts, kept, nowNanos, this.clock.instant()));
		this.links.put(item, link);
		link.prev = this.newest;
		if (this.newest != null) {
			this.newest.next = link;
		}
		else {
			this.oldest = link;
		}
		this.newest = link;
		while (this.links.size() > this.keep) {
			drop(this.oldest);
		}
	}

	/**
	 * Returns the records newest first.
	 * @param offset how many to skip
	 * @param limit how many at most
	 * @return the records
	 */
	synchronized List<GivenUp<T>> page(int offset, int limit) {
		expire(this.clock.nanoTime());
		List<GivenUp<T>> page = new ArrayList<>(Math.min(limit, this.links.size()));
		Link<T> link = this.newest;
		for (int skipped = 0; link != null && skipped < offset; skipped++) {
			link = link.prev;
		}
		for (; link != null && page.size() < limit; link = link.prev) {
			page.add(link.record);
		}
		return page;
	}

	/**
	 * Returns the record of an item.
	 * @param item the item
	 * @return the record, or {@code null}
	 */
	synchronized GivenUp<T> get(Object item) {
		expire(this.clock.nanoTime());
		Link<T> link = this.links.get(item);
		return (link != null) ? link.record : null;
	}

	/**
	 * Returns the newest record whose item matches, in O(n).
	 * @param match the test of an item
	 * @return the record, or {@code null}
	 */
	synchronized GivenUp<T> find(Predicate<? super T> match) {
		expire(this.clock.nanoTime());
		for (Link<T> link = this.newest; link != null; link = link.prev) {
			if (match.test(link.record.item())) {
				return link.record;
			}
		}
		return null;
	}

	/**
	 * Removes the record of an item.
	 * @param item the item
	 * @return the record removed, or {@code null} if none was kept
	 */
	synchronized GivenUp<T> remove(Object item) {
		expire(this.clock.nanoTime());
		Link<T> link = this.links.remove(item);
		unlink(link);
		return (link != null) ? link.record : null;
	}

	/**
	 * Removes the record of an item if it was given up at {@code givenUpAt}.
	 * @param item the item
	 * @param givenUpAt the record's wall time
	 * @return whether that record was kept, and is removed
	 */
	synchronized boolean remove(Object item, Instant givenUpAt) {
		expire(this.clock.nanoTime());
		Link<T> link = this.links.get(item);
		if (link == null || !link.record.givenUpAt().equals(givenUpAt)) {
			return false;
		}
		drop(link);
		return true;
	}

	/**
	 * Returns how many records are kept.
	 * @return the count
	 */
	synchronized int size() {
		expire(this.clock.nanoTime());
		return this.links.size();
	}

	/** Drops the records past their retention at {@code nowNanos}. */
	private void expire(long nowNanos) {
		while (this.oldest != null && nowNanos - this.oldest.record.givenUpAtNanos() >= this.retentionNanos) {
			drop(this.oldest);
		}
	}

	private void drop(Link<T> link) {
		this.links.remove(link.record.item());
		unlink(link);
	}

	private void unlink(Link<T> link) {
		if (link == null) {
			return;
		}
		if (link.prev != null) {
			link.prev.next = link.next;
		}
		else {
			this.oldest = link.next;
		}
		if (link.next != null) {
			link.next.prev = link.prev;
		}
		else {
			this.newest = link.prev;
		}
		link.prev = null;
		link.next = null;
	}

	/**
	 * One record: what a view of a given-up item shows.
	 *
	 * @param <T> the item type
	 * @param item the item
	 * @param attempts its failed attempts when given up
	 * @param reason why, or {@code null}
	 * @param givenUpAtNanos when, on the queue's clock
	 * @param givenUpAt when, on the wall clock read with it: what views show, the same on
	 * every look (a wall time worked out from the queue's clock at each look would move
	 * by the jitter between the two clocks' readings)
	 */
	record GivenUp<T>(T item, int attempts, String reason, long givenUpAtNanos, Instant givenUpAt) {
	}

	/** A record's place in the list, oldest to newest; guarded by the records. */
	private static final class Link<T> {

		final GivenUp<T> record;

		Link<T> prev;

		Link<T> next;

		Link(GivenUp<T> record) {
			this.record = record;
		}

	}

}
