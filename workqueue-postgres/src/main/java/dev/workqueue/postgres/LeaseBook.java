package dev.workqueue.postgres;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases one handle holds, by item: the lease its worker has (or that waits, claimed
 * ahead, for a consumer), whether it was found lost, and a parked lease.
 * <p>
 * <b>Parking.</b> A handle never hands out an item one of its own workers still holds.
 * When a worker's lease ran out (a long pause) and the item was queued again, a claim of
 * the same handle can lease it anew: that lease is parked here, renewed with the others
 * so that no other handle gets the item, but not handed out. The worker's late
 * {@code done} then names a token the row no longer has and changes nothing, and the
 * parked lease is handed back: the item runs again, after, as a dirty item does.
 * <p>
 * <b>Validity.</b> Each lease knows until when, on the handle's clock, it surely holds:
 * the time its claim or last renewal was sent plus the lease. A lease claimed ahead is
 * handed out only while it holds a margin longer.
 * <p>
 * <b>Ending.</b> A lease whose {@code done} is under way stays here, marked ending, until
 * that done's statement has returned (committed, or failed): renewed meanwhile (a done
 * can wait for an item row another session locks), never handed back, and among the
 * {@link #tokens() tokens} the hand-back of lost claims spares, so that it never queues
 * again a row whose done then returns normally. For everything else the hold has ended:
 * the item may be leased anew (its done queued it again), and that new lease replaces it.
 * <p>
 * Thread-safe: a holding changes only inside the map's atomic per-item operations; its
 * fields are volatile for readers outside them (renewal, statistics).
 *
 * @param <T> the item type
 */
final class LeaseBook<T> {

	/** One lease: the item's text, the token the row holds, when it began. */
	static final class Lease {

		final String encoded;

		final long token;

		final long startedNanos;

		/** Until when, on the clock, the lease surely holds. */
		volatile long validUntilNanos;

		/**
		 * The kinds of limiter history forgotten while the lease was held, which its done
		 * deletes; written only inside the book's per-item operations, read once the hold
		 * has ended (the map's removal orders the two).
		 */
		volatile String[] forgets = NO_FORGETS;

		Lease(String encoded, long token, long startedNanos, long validUntilNanos) {
			this.encoded = encoded;
			this.token = token;
			this.startedNanos = startedNanos;
			this.validUntilNanos = validUntilNanos;
		}

	}

	/** What the handle holds of one item. */
	static final class Holding {

		final Lease lease;

		volatile boolean lost;

		volatile Lease parked;

		/** Its done is under way: set once, inside the map's operations. */
		volatile boolean ending;

		Holding(Lease lease) {
			this.lease = lease;
		}

		/** The lease the table holds for this handle now, or {@code null}. */
		Lease live() {
			Lease parked = this.parked;
			return (parked != null) ? parked : (this.lost ? null : this.lease);
		}

	}

	static final String[] NO_FORGETS = {};

	private final ConcurrentHashMap<T, Holding> holdings = new ConcurrentHashMap<>();

	/** The items of the leases whose done is under way, by lease (identity). */
	private final Map<Lease, T> ending = new ConcurrentHashMap<>();

	/** Leases to hand back that could not be yet: token to the item's text. */
	private final Map<Long, String> orphans = new ConcurrentHashMap<>();

	/**
	 * Takes a new lease in hand.
	 * @param item the item
	 * @param lease its lease
	 * @return {@code true} to hand the item out; {@code false} if a worker of this handle
	 * still holds it and the lease is parked
	 */
	boolean take(T item, Lease lease) {
		Holding fresh = new Holding(lease);
		Holding holding = this.holdings.compute(item, (key, held) -> {
			if (held == null || held.ending) {
				// Done (or its done under way): the item was queued again and is new
				// here.
				return fresh;
			}
			// Leased anew: whatever this handle held of it before is lost (a parked
			// lease too: the row had to be queued again to be claimed).
			held.lost = true;
			held.parked = lease;
			return held;
		});
		return holding == fresh;
	}

	/**
	 * Whether a lease claimed ahead may be handed out now: still this item's live lease,
	 * and valid for longer than {@code marginNanos}.
	 */
	boolean handsOut(T item, Lease lease, long nowNanos, long marginNanos) {
		Holding holding = this.holdings.get(item);
		return holding != null && !holding.ending && holding.lease == lease && holding.live() == lease
				&& lease.validUntilNanos - nowNanos > marginNanos;
	}

	/**
	 * Defers a forget of the item's limiter history of {@code kind} to the done of the
	 * live lease this handle holds of it.
	 * @return whether it is deferred; {@code false} when the handle holds no live lease
	 * of the item, and the forget must run now
	 */
	boolean deferForget(T item, String kind) {
		boolean[] deferred = { false };
		this.holdings.computeIfPresent(item, (key, holding) -> {
			if (!holding.ending && holding.live() == holding.lease) {
				String[] forgets = holding.lease.forgets;
				if (!Arrays.asList(forgets).contains(kind)) {
					String[] more = Arrays.copyOf(forgets, forgets.length + 1);
					more[forgets.length] = kind;
					holding.lease.forgets = more;
				}
				deferred[0] = true;
			}
			return holding;
		});
		return deferred[0];
	}

	/**
	 * Takes back a deferred forget of the item's history of {@code kind}, for a caller
	 * that must see or change that history now.
	 * @return whether one was deferred (and the forget must run now)
	 */
	boolean takeForget(T item, String kind) {
		boolean[] taken = { false };
		this.holdings.computeIfPresent(item, (key, holding) -> {
			String[] forgets = holding.lease.forgets;
			if (Arrays.asList(forgets).contains(kind)) {
				holding.lease.forgets = Arrays.stream(forgets)
					.filter((forgotten) -> !forgotten.equals(kind))
					.toArray(String[]::new);
				taken[0] = true;
			}
			return holding;
		});
		return taken[0];
	}

	/**
	 * Ends a hold without a done (a hand-back).
	 * @param item the item
	 * @return the holding, or {@code null} if this handle did not hold the item (or its
	 * done is under way)
	 */
	Holding finish(T item) {
		Holding[] finished = { null };
		this.holdings.computeIfPresent(item, (key, holding) -> {
			if (holding.ending) {
				return holding;
			}
			finished[0] = holding;
			return null;
		});
		return finished[0];
	}

	/**
	 * Ends a hold with a done: a live lease (neither lost nor parked) stays here, ending,
	 * until {@link #ended} (see the class comment); any other hold ends now.
	 * @param item the item
	 * @return the holding (ending if its lease is to be done), or {@code null} if this
	 * handle did not hold the item (or its done is under way already)
	 */
	Holding finishForDone(T item) {
		Holding[] finished = { null };
		this.holdings.computeIfPresent(item, (key, holding) -> {
			if (holding.ending) {
				return holding;
			}
			finished[0] = holding;
			if (holding.lost || holding.parked != null) {
				return null;
			}
			this.ending.put(holding.lease, item);
			holding.ending = true;
			return holding;
		});
		return finished[0];
	}

	/**
	 * The done of an ending lease returned (or failed): the hold ends, unless the item
	 * was leased anew meanwhile (that lease stays).
	 */
	void ended(Lease lease) {
		T item = this.ending.remove(lease);
		if (item != null) {
			this.holdings.computeIfPresent(item,
					(key, holding) -> (holding.ending && holding.lease == lease) ? null : holding);
		}
	}

	/** Ends every hold but those whose done is under way, to hand all back. */
	List<Holding> finishAll() {
		List<Holding> all = new ArrayList<>();
		for (T item : this.holdings.keySet()) {
			Holding holding = finish(item);
			if (holding != null) {
				all.add(holding);
			}
		}
		return all;
	}

	/** The leases to renew: every live one (those whose done is under way too). */
	List<Lease> live() {
		List<Lease> live = new ArrayList<>(this.holdings.size());
		for (Holding holding : this.holdings.values()) {
			Lease lease = holding.live();
			if (lease != null) {
				live.add(lease);
			}
		}
		return live;
	}

	/**
	 * Records a renewal: the leases asked for whose tokens came back hold until
	 * {@code validUntilNanos}; the others are lost (a worker keeps its item until its
	 * {@code done}, which then changes nothing; a parked lease is dropped), but for those
	 * whose done is under way (which may have ended them). Each holding changes
	 * atomically, so a lease taken meanwhile stays.
	 * @param asked the leases the renewal named
	 * @param renewed the tokens it renewed
	 * @param validUntilNanos until when the renewed ones hold
	 * @return how many leases were lost
	 */
	int renewed(Collection<Lease> asked, Set<Long> renewed, long validUntilNanos) {
		Map<Long, Lease> lost = new HashMap<>();
		for (Lease lease : asked) {
			if (renewed.contains(lease.token)) {
				lease.validUntilNanos = validUntilNanos;
			}
			else {
				lost.put(lease.token, lease);
			}
		}
		if (lost.isEmpty()) {
			return 0;
		}
		int[] count = { 0 };
		for (T item : this.holdings.keySet()) {
			this.holdings.computeIfPresent(item, (key, holding) -> {
				Lease parked = holding.parked;
				if (parked != null && lost.get(parked.token) == parked) {
					holding.parked = null;
					count[0]++;
				}
				if (!holding.lost && !holding.ending && lost.get(holding.lease.token) == holding.lease) {
					holding.lost = true;
					count[0]++;
				}
				return holding;
			});
		}
		return count[0];
	}

	/**
	 * Remembers a lease to hand back later: its hand-back failed.
	 * @param token the lease's token
	 * @param encoded the item's text
	 */
	void orphan(long token, String encoded) {
		this.orphans.put(token, encoded);
	}

	/** Takes the leases to hand back: token to item. */
	Map<Long, String> takeOrphans() {
		Map<Long, String> taken = new HashMap<>();
		for (Long token : this.orphans.keySet()) {
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

	/**
	 * Every token this handle knows it holds, must hand back, or is ending with a done
	 * under way.
	 */
	long[] tokens() {
		List<Long> tokens = new ArrayList<>(this.orphans.keySet());
		for (Holding holding : this.holdings.values()) {
			tokens.add(holding.lease.token);
			Lease parked = holding.parked;
			if (parked != null) {
				tokens.add(parked.token);
			}
		}
		return tokens.stream().mapToLong(Long::longValue).toArray();
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
			long age = nowNanos - holding.lease.startedNanos;
			sum += age;
			longest = Math.max(longest, age);
		}
		return new long[] { sum, longest };
	}

}
