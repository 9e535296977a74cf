package dev.workqueue.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leases one queue handle holds, kept by lease, not by item: what its workers hold,
 * and the leases it cannot hand out yet.
 * <p>
 * <b>Parking.</b> A handle never hands out an item one of its own workers still holds. If
 * a worker's lease ran out (a GC pause, a network cut) and the server handed the item
 * back to the queue, another get of the same handle can lease it again. That lease is
 * parked in the holding: renewed with the others, so no other instance gets the item, but
 * not handed out. The first worker's {@code done} then finds its own lease lost (the
 * server holds the parked token instead), so it changes nothing, and the parked lease is
 * handed back to the ready list: the item runs again, after, as client-go's
 * dirty-while-processing item does. A lease of an equal item under another encoding is
 * another item in Redis, which only a codec that breaks its contract makes: it is held
 * aside as a copy, renewed with the others and not handed out, while the worker's lease
 * stays live; the worker's {@code done} hands the copies back to the ready list, so they
 * run after, one at a time, as re-adds of a consistent codec would.
 * <p>
 * <b>Tokens</b> are made here: this handle's random id and a count, unique for ever, so
 * neither a restart of Redis nor a failover that loses writes can repeat one.
 * <p>
 * Thread-safe: a holding changes only inside the map's atomic per-item operations, and
 * its fields are volatile for the readers (renewal, statistics) outside them.
 *
 * @param <T> the item type
 */
final class LeaseBook<T> {

	/**
	 * One lease.
	 *
	 * @param encoded the item's identity in Redis
	 * @param token the token the server holds for it
	 * @param startedNanos when it was leased, on the clock
	 */
	record Lease(String encoded, String token, long startedNanos) {

	}

	/**
	 * What a handle holds of one item: the lease its worker has, whether that was found
	 * lost, a parked lease, and the leases of copies under other encodings.
	 */
	static final class Holding {

		final Lease lease;

		volatile boolean lost;

		volatile Lease parked;

		/** Replaced, never changed, inside the map's atomic operation on the item. */
		volatile List<Lease> copies = List.of();

		Holding(Lease lease) {
			this.lease = lease;
		}

		/** The lease the server holds for this handle now, or {@code null}. */
		Lease live() {
			Lease parked = this.parked;
			return (parked != null) ? parked : (this.lost ? null : this.lease);
		}

		/** A new list of the copies with one added, in place of one of its encoding. */
		private List<Lease> withCopy(Lease copy) {
			List<Lease> copies = new ArrayList<>(this.copies.size() + 1);
			for (Lease held : this.copies) {
				if (!held.encoded().equals(copy.encoded())) {
					copies.add(held);
				}
			}
			copies.add(copy);
			return List.copyOf(copies);
		}

	}

	private final String id;

	private final AtomicLong tokens = new AtomicLong();

	private final ConcurrentHashMap<T, Holding> holdings = new ConcurrentHashMap<>();

	/**
	 * Leases this handle must hand back but could not yet: token to the item's identity,
	 * or to {@code ""} when a get never heard back and the item is unknown.
	 */
	private final Map<String, String> orphans = new ConcurrentHashMap<>();

	LeaseBook(String id) {
		this.id = id;
	}

	/** A token no lease ever had. */
	String newToken() {
		return this.id + ":" + Long.toString(this.tokens.incrementAndGet(), 36);
	}

	/**
	 * The token of the {@code n}-th item a get leased with {@code token}, as the scripts
	 * make it ({@code token_of} in {@code includes/token_of.lua}).
	 * @param token the get's token
	 * @param n the item's place in the reply, from 1
	 * @return its token
	 */
	static String nth(String token, int n) {
		return (n == 1) ? token : token + "." + n;
	}

	/** What {@link #take} did with a new lease. */
	enum Taken {

		/** Held: the item is handed out. */
		HELD,

		/** Parked: one of this handle's workers still holds the item. */
		PARKED,

		/**
		 * Held aside as a copy: a worker holds an equal item under another encoding,
		 * which only a codec that breaks its contract makes (equal items, equal
		 * encodings). The worker's lease stays as it was; its {@code done} hands the copy
		 * back.
		 */
		OTHER_ENCODING

	}

	/**
	 * Takes a new lease in hand.
	 * @param item the item
	 * @param lease its lease
	 * @return what became of it
	 */
	Taken take(T item, Lease lease) {
		Holding fresh = new Holding(lease);
		Taken[] taken = { Taken.HELD };
		this.holdings.compute(item, (key, held) -> {
			if (held == null) {
				return fresh;
			}
			if (!held.lease.encoded().equals(lease.encoded())) {
				// Another item in Redis: the held one's lease is not touched. A copy of
				// an encoding held aside already was re-leased by the server: the old
				// lease is lost.
				held.copies = held.withCopy(lease);
				taken[0] = Taken.OTHER_ENCODING;
				return held;
			}
			// The server re-leased it: whatever this handle held of it before is lost.
			held.lost = true;
			held.parked = lease;
			taken[0] = Taken.PARKED;
			return held;
		});
		return taken[0];
	}

	/**
	 * The encoding under which a worker holds an item, for messages.
	 * @param item the item
	 * @return the encoding, or {@code null} if no worker holds it
	 */
	String heldEncoding(T item) {
		Holding holding = this.holdings.get(item);
		return (holding != null) ? holding.lease.encoded() : null;
	}

	/**
	 * Ends a worker's hold of an item.
	 * @param item the item
	 * @return the holding, or {@code null} if this handle did not hold the item
	 */
	Holding finish(T item) {
		return this.holdings.remove(item);
	}

	/** Ends every hold, for handing all back. */
	List<Holding> finishAll() {
		List<Holding> all = new ArrayList<>();
		for (T item : this.holdings.keySet()) {
			Holding holding = this.holdings.remove(item);
			if (holding != null) {
				all.add(holding);
			}
		}
		return all;
	}

	/** The leases to renew: every live one, and the copies held aside. */
	List<Lease> live() {
		List<Lease> live = new ArrayList<>(this.holdings.size());
		for (Holding holding : this.holdings.values()) {
			Lease lease = holding.live();
			if (lease != null) {
				live.add(lease);
			}
			live.addAll(holding.copies);
		}
		return live;
	}

	/**
	 * Records the leases the server no longer holds for this handle: a worker's lease is
	 * marked lost (the worker keeps the item until its {@code done}), a parked one or a
	 * copy is dropped. Each holding changes atomically, so a lease parked meanwhile
	 * stays.
	 * @param tokens the lost tokens
	 * @return how many leases were lost
	 */
	int lost(Collection<String> tokens) {
		int[] lost = { 0 };
		for (T item : this.holdings.keySet()) {
			this.holdings.computeIfPresent(item, (key, holding) -> {
				Lease parked = holding.parked;
				if (parked != null && tokens.contains(parked.token())) {
					holding.parked = null;
					lost[0]++;
				}
				if (!holding.lost && tokens.contains(holding.lease.token())) {
					holding.lost = true;
					lost[0]++;
				}
				List<Lease> copies = holding.copies.stream().filter((copy) -> !tokens.contains(copy.token())).toList();
				lost[0] += holding.copies.size() - copies.size();
				holding.copies = copies;
				return holding;
			});
		}
		return lost[0];
	}

	/**
	 * Remembers a lease to hand back later: its release failed, or its get never heard
	 * back.
	 * @param token the lease's token
	 * @param encoded the item's identity, or {@code null} when unknown
	 */
	void orphan(String token, String encoded) {
		this.orphans.put(token, (encoded != null) ? encoded : "");
	}

	/** Takes the leases to hand back: token to item, {@code ""} when unknown. */
	Map<String, String> takeOrphans() {
		Map<String, String> taken = new HashMap<>();
		for (String token : this.orphans.keySet()) {
			String encoded = this.orphans.remove(token);
			if (encoded != null) {
				taken.put(token, encoded);
			}
		}
		return taken;
	}

	boolean hasOrphans() {
		return !this.orphans.isEmpty();
	}

	boolean isEmpty() {
		return this.holdings.isEmpty();
	}

	int size() {
		return this.holdings.size();
	}

	/** Summed and longest time the held items have been in process: {sum, longest}. */
	long[] processingNanos(long nowNanos) {
		long sum = 0;
		long longest = 0;
		for (Holding holding : this.holdings.values()) {
			long age = nowNanos - holding.lease.startedNanos();
			sum += age;
			longest = Math.max(longest, age);
		}
		return new long[] { sum, longest };
	}

}
