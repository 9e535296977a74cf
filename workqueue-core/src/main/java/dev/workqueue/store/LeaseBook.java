package dev.workqueue.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The leases one handle of a shared store holds, by item: the lease its worker has (or
 * that waits, claimed ahead, for a consumer), whether it was found lost, a parked lease,
 * the copies of the item under other encodings, and the leases to hand back that could
 * not be yet. Part of the shared-store engine, used by store modules; may change before
 * 1.0.
 * <p>
 * <b>Parking.</b> A handle never hands out an item one of its own workers still holds.
 * When a worker's lease ran out (a long pause, a network cut) and the item was queued
 * again, a claim of the same handle can lease it anew: that lease is parked here, renewed
 * with the others so that no other handle gets the item, but not handed out. The worker's
 * late {@code done} then names a token the store no longer holds and changes nothing, and
 * the parked lease is handed back: the item runs again, after, as client-go's
 * dirty-while-processing item does.
 * <p>
 * <b>Copies.</b> A lease of an equal item under another encoding is another item in the
 * store, which only a codec that breaks its contract makes (equal items, equal
 * encodings): it is held aside as a copy, renewed with the others and not handed out,
 * while the worker's lease stays live; the worker's {@code done} hands the copies back,
 * so they run after, one at a time, as re-adds of a consistent codec would.
 * <p>
 * <b>Claimed ahead.</b> A lease a claim took for a consumer that has not taken it yet is
 * no worker's: a {@code done} or a hand-back of its item leaves it alone (a done of an
 * item not being processed is a no-op), until {@link #handOut} gives it to a consumer.
 * Only its own lease hands it back unused ({@link #finishAhead}), so that an item leased
 * anew meanwhile keeps its new hold.
 * <p>
 * <b>Validity.</b> Each lease knows until when, on the handle's clock, it surely holds:
 * the time its claim or last renewal was sent plus the lease. A lease claimed ahead is
 * handed out only while it holds a margin longer ({@link #handOut}).
 * <p>
 * <b>Ending.</b> A lease whose {@code done} is under way stays here, marked ending, until
 * that done has returned (or failed): renewed meanwhile (a done can wait for an item
 * another session locks), never handed back, and among the {@link #known() leases} the
 * hand-back of lost claims spares, so that it never queues again an item whose done then
 * returns normally. For everything else the hold has ended: the item may be leased anew
 * (its done queued it again), and that new lease replaces it.
 * <p>
 * Thread-safe: a holding changes only inside the map's atomic per-item operations; its
 * fields are volatile for readers outside them (renewal, statistics). Nothing blocks.
 *
 * @param <T> the item type
 * @param <L> the store's lease type
 */
public final class LeaseBook<T, L extends Lease> {

	/** What {@link #take} did with a new lease. */
	public enum Taken {

		/** Held: the item is handed out. */
		HELD,

		/** Parked: one of this handle's workers still holds the item. */
		PARKED,

		/**
		 * Held aside as a copy: a worker holds an equal item under another encoding. The
		 * worker's lease stays as it was; its {@code done} hands the copy back.
		 */
		OTHER_ENCODING

	}

	private final ConcurrentHashMap<T, Holding<L>> holdings = new ConcurrentHashMap<>();

	/** Leases to hand back that could not be yet. */
	private final Set<L> orphans = ConcurrentHashMap.newKeySet();

	/**
	 * Takes a new lease in hand.
	 * @param item the item
	 * @param lease its lease
	 * @return what became of it
	 */
	public Taken take(T item, L lease) {
		return take(item, lease, false);
	}

	/**
	 * Takes a new lease in hand that a claim took ahead for a waiting consumer: until
	 * {@link #handOut} gives it to one, no worker holds the item, and a {@code done} or a
	 * hand-back of the item leaves it alone.
	 * @param item the item
	 * @param lease its lease
	 * @return what became of it
	 */
	public Taken takeAhead(T item, L lease) {
		return take(item, lease, true);
	}

	private Taken take(T item, L lease, boolean ahead) {
		Holding<L> fresh = new Holding<>(lease);
		fresh.ahead = ahead;
		Taken[] taken = { Taken.HELD };
		this.holdings.compute(item, (key, held) -> {
			if (held == null || held.ending) {
				// Done (or its done under way): the item was queued again and is new
				// here.
				return fresh;
			}
			if (!held.lease.encoded().equals(lease.encoded())) {
				// Another item in the store: the held one's lease is not touched. A copy
				// of an encoding held aside already was leased anew: the old one is lost.
				held.copies = held.withCopy(lease);
				taken[0] = Taken.OTHER_ENCODING;
				return held;
			}
			// Leased anew: whatever this handle held of it before is lost (a parked lease
			// too: the item had to be queued again to be claimed).
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
	public String heldEncoding(T item) {
		Holding<L> holding = this.holdings.get(item);
		return (holding != null) ? holding.lease.encoded() : null;
	}

	/**
	 * Hands out a lease claimed ahead, if it may be handed out now: from then on a worker
	 * holds the item.
	 * @param item the item
	 * @param lease its lease
	 * @param nowNanos the time on the handle's clock
	 * @param marginNanos how much longer than now the lease must surely hold
	 * @return whether it was still the item's live lease, valid for longer than the
	 * margin, and is now handed out
	 */
	public boolean handOut(T item, L lease, long nowNanos, long marginNanos) {
		boolean[] handed = { false };
		this.holdings.computeIfPresent(item, (key, holding) -> {
			if (holding.ahead && holding.lease == lease && holding.live() == lease
					&& lease.validUntilNanos() - nowNanos > marginNanos) {
				holding.ahead = false;
				handed[0] = true;
			}
			return holding;
		});
		return handed[0];
	}

	/**
	 * Defers a forget of the item's limiter history of {@code kind} to the done of the
	 * live lease this handle holds of it.
	 * @param item the item
	 * @param kind the kind of history
	 * @return whether it is deferred; {@code false} when the handle holds no live lease
	 * of the item, and the forget must run now
	 */
	public boolean deferForget(T item, String kind) {
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
	 * @param item the item
	 * @param kind the kind of history
	 * @return whether one was deferred (and the forget must run now)
	 */
	public boolean takeForget(T item, String kind) {
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
	 * Ends a worker's hold without a done (a hand-back).
	 * @return the holding, or {@code null} if no worker of this handle held the item (or
	 * its done is under way)
	 */
	Holding<L> finish(T item) {
		return finish(item, false, (holding) -> !holding.ahead);
	}

	/**
	 * Ends a worker's hold with a done: a live lease (neither lost nor parked) stays
	 * here, ending, until {@link #ended} (see the class comment); any other hold ends
	 * now.
	 * @return the holding (ending if its lease is to be done), or {@code null} if no
	 * worker of this handle held the item (or its done is under way already)
	 */
	Holding<L> finishForDone(T item) {
		return finish(item, true, (holding) -> !holding.ahead);
	}

	/**
	 * Ends the hold of a lease claimed ahead that no consumer took, to hand it back.
	 * @return the holding, or {@code null} if the item is no longer held by that lease
	 */
	Holding<L> finishAhead(T item, L lease) {
		return finish(item, false, (holding) -> holding.lease == lease);
	}

	private Holding<L> finish(T item, boolean done, Predicate<Holding<L>> ends) {
		@SuppressWarnings("unchecked")
		Holding<L>[] finished = new Holding[1];
		this.holdings.computeIfPresent(item, (key, holding) -> {
			if (holding.ending || !ends.test(holding)) {
				return holding;
			}
			finished[0] = holding;
			if (!done || holding.lost || holding.parked != null) {
				return null;
			}
			holding.lease.endingItem = item;
			holding.ending = true;
			return holding;
		});
		return finished[0];
	}

	/**
	 * The done of an ending lease returned (or failed): the hold ends, unless the item
	 * was leased anew meanwhile (that lease stays).
	 */
	void ended(L lease) {
		@SuppressWarnings("unchecked")
		T item = (T) lease.endingItem;
		if (item != null) {
			lease.endingItem = null;
			this.holdings.computeIfPresent(item,
					(key, holding) -> (holding.ending && holding.lease == lease) ? null : holding);
		}
	}

	/**
	 * Ends every hold but those whose done is under way (those claimed ahead too), to
	 * hand all back.
	 */
	List<Holding<L>> finishAll() {
		List<Holding<L>> all = new ArrayList<>();
		for (T item : this.holdings.keySet()) {
			Holding<L> holding = finish(item, false, (any) -> true);
			if (holding != null) {
				all.add(holding);
			}
		}
		return all;
	}

	/**
	 * The leases to renew: every live one (those whose done is under way too), and the
	 * copies held aside.
	 * @return a new list
	 */
	public List<L> live() {
		List<L> live = new ArrayList<>(this.holdings.size());
		for (Holding<L> holding : this.holdings.values()) {
			L lease = holding.live();
			if (lease != null) {
				live.add(lease);
			}
			live.addAll(holding.copies);
		}
		return live;
	}

	/**
	 * Records a renewal: the leases asked for that it kept hold until
	 * {@code validUntilNanos}; the others are lost (a worker keeps its item until its
	 * {@code done}, which then changes nothing; a parked lease or a copy is dropped), but
	 * for those whose done is under way (which may have ended them). Each holding changes
	 * atomically, so a lease taken meanwhile stays.
	 * @param asked the leases the renewal named
	 * @param kept whether the store renewed one
	 * @param validUntilNanos until when the renewed ones hold
	 * @return how many leases were lost
	 */
	public int renewed(Collection<L> asked, Predicate<? super L> kept, long validUntilNanos) {
		Map<Lease, Boolean> lost = new IdentityHashMap<>();
		for (L lease : asked) {
			if (kept.test(lease)) {
				lease.validUntilNanos(validUntilNanos);
			}
			else {
				lost.put(lease, Boolean.TRUE);
			}
		}
		if (lost.isEmpty()) {
			return 0;
		}
		int[] count = { 0 };
		for (T item : this.holdings.keySet()) {
			this.holdings.computeIfPresent(item, (key, holding) -> {
				L parked = holding.parked;
				if (parked != null && lost.containsKey(parked)) {
					holding.parked = null;
					count[0]++;
				}
				if (!holding.lost && !holding.ending && lost.containsKey(holding.lease)) {
					holding.lost = true;
					count[0]++;
				}
				List<L> copies = holding.copies;
				if (!copies.isEmpty()) {
					List<L> left = copies.stream().filter((copy) -> !lost.containsKey(copy)).toList();
					count[0] += copies.size() - left.size();
					holding.copies = left;
				}
				return holding;
			});
		}
		return count[0];
	}

	/**
	 * Remembers a lease to hand back later: its hand-back failed or was left for later
	 * (another transaction locks its record), or its claim never heard back.
	 * @param lease the lease
	 */
	public void orphan(L lease) {
		this.orphans.add(lease);
	}

	/**
	 * Takes the leases to hand back.
	 * @return a new list; the caller orphans again those it fails to hand back
	 */
	public List<L> takeOrphans() {
		List<L> taken = new ArrayList<>();
		for (L lease : this.orphans) {
			if (this.orphans.remove(lease)) {
				taken.add(lease);
			}
		}
		return taken;
	}

	/**
	 * Whether leases wait to be handed back.
	 * @return whether there are orphans
	 */
	public boolean hasOrphans() {
		return !this.orphans.isEmpty();
	}

	/**
	 * Every lease this handle knows it holds (lost, parked, held aside, or ending with a
	 * done under way) or must hand back: what a hand-back of lost claims spares.
	 * @return a new list
	 */
	public List<L> known() {
		List<L> known = new ArrayList<>(this.orphans);
		for (Holding<L> holding : this.holdings.values()) {
			known.add(holding.lease);
			L parked = holding.parked;
			if (parked != null) {
				known.add(parked);
			}
			known.addAll(holding.copies);
		}
		return known;
	}

	/**
	 * Whether this handle holds no item.
	 * @return whether the book is empty (orphans aside)
	 */
	public boolean isEmpty() {
		return this.holdings.isEmpty();
	}

	/**
	 * How many items this handle holds.
	 * @return the number of holdings
	 */
	public int size() {
		return this.holdings.size();
	}

	/**
	 * Summed and longest time the held items have been in process.
	 * @param nowNanos the time on the handle's clock
	 * @return {sum, longest}
	 */
	public long[] processingNanos(long nowNanos) {
		long sum = 0;
		long longest = 0;
		for (Holding<L> holding : this.holdings.values()) {
			long age = nowNanos - holding.lease.startedNanos();
			sum += age;
			longest = Math.max(longest, age);
		}
		return new long[] { sum, longest };
	}

}
