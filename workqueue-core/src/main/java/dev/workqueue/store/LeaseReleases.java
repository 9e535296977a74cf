package dev.workqueue.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a handle of a shared store ends its holds: {@code done} (fenced off when the lease
 * was lost; a parked lease and the copies a rule-breaking codec made are handed back, so
 * the item runs again after), a done that rides with the worker's next take, hand-backs
 * of one item or all, and the remembering of leases whose hand-back failed (orphans),
 * which the handle's timed work hands back later: this wakes it. Each counts as a call
 * under way in the handle's {@link HandleLifecycle}, and tells a drain when the last hold
 * ends. The store runs each operation through its {@link ReleaseDriver}. Part of the
 * shared-store engine, used by store modules; may change before 1.0.
 * <p>
 * <b>Grouped dones.</b> The dones sent alone go through a {@link CallGroup} (group
 * commit): while one {@link ReleaseDriver#done} call is under way, the dones of other
 * workers queue, and the next call ends them all (at most {@link #MAX_DONES} at once). A
 * done returns only once the call that carried it returned, so a done that returned is
 * never undone; it waits for the call under way and then its own (and for more only when
 * more than {@link #MAX_DONES} dones queued ahead of it). A call that fails fails every
 * done of it: each caller throws, and each lease is handled as a single failed done's (no
 * longer renewed, it runs out and the item comes back).
 * <p>
 * Thread-safe: the state is the {@link LeaseBook}'s; this class keeps none. Every method
 * blocks for the store's operations it runs, and throws the store's exception when one
 * fails (the lease is then an orphan, handed back later).
 *
 * @param <T> the item type
 * @param <L> the store's lease type
 */
public final class LeaseReleases<T, L extends Lease> {

	/** The most dones in one store call. */
	static final int MAX_DONES = 64;

	private final ReleaseDriver<L> driver;

	/** The dones sent alone, grouped. */
	private final CallGroup<L, Boolean> dones;

	private final LeaseBook<T, L> book;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded; it takes durations only if it records them. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	/** Wakes the timed work that hands back the orphans. */
	private final Runnable orphaned;

	/**
	 * Creates the releases of one handle.
	 * @param driver the store's operations
	 * @param book the handle's leases
	 * @param lifecycle the handle's lifecycle
	 * @param metrics the queue's hook, guarded
	 * @param clock the handle's clock
	 * @param orphaned wakes the timed work that hands back the orphans
	 */
	public LeaseReleases(ReleaseDriver<L> driver, LeaseBook<T, L> book, HandleLifecycle lifecycle,
			WorkQueueMetrics metrics, Clock clock, Runnable orphaned) {
		this.driver = Objects.requireNonNull(driver, "driver");
		this.book = Objects.requireNonNull(book, "book");
		this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
		this.metrics = Objects.requireNonNull(metrics, "metrics");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.orphaned = Objects.requireNonNull(orphaned, "orphaned");
		this.dones = new CallGroup<>(MAX_DONES, new DoneWriter<>(driver));
	}

	/**
	 * A worker's {@code done}: ends the hold, and the lease in the store unless it was
	 * lost.
	 * @param item the item
	 */
	public void done(T item) {
		L lease = finishForNextTake(item);
		if (lease != null) {
			sendDone(lease);
		}
	}

	/**
	 * Ends a worker's hold of an item whose done rides with the worker's next take:
	 * returns the lease for that operation to end when the handle holds it live; else
	 * ends the hold as {@link #done} does and returns {@code null}. A lease returned
	 * keeps a call under way, and stays in the book as ending, until {@link #doneSent}
	 * (or {@link #sendDone}).
	 * @param item the item
	 * @return the lease to end, or {@code null}
	 */
	public L finishForNextTake(T item) {
		Objects.requireNonNull(item, "item");
		this.lifecycle.enterAlways();
		L owed = null;
		try {
			Holding<L> holding = this.book.finishForDone(item);
			if (holding == null) {
				return null;
			}
			if (this.metrics.recordsDurations()) {
				this.metrics.done(this.clock.nanoTime() - holding.lease.startedNanos());
			}
			owed = holding.ending ? holding.lease : null;
			// Before the item goes back, as every release forgets.
			RuntimeException forgetFailure = (owed == null) ? forgetWithoutDone(holding.lease) : null;
			handBackCopies(holding);
			L parked = holding.parked;
			if (parked != null) {
				// Claimed anew while this worker held it: it runs again, after.
				handBackOrOrphan(parked, 0);
			}
			throwIfFailed(forgetFailure);
			return owed;
		}
		finally {
			if (owed == null) {
				afterRelease();
			}
		}
	}

	/**
	 * Ends a lease {@link #finishForNextTake} returned, without a claim: in one store
	 * call with the dones other workers send meanwhile, returning once that call
	 * returned. If it fails, the lease is no longer renewed: it runs out and the item
	 * comes back, at least once.
	 * @param lease the lease
	 * @throws RuntimeException the store's failure, if the call failed
	 */
	public void sendDone(L lease) {
		try {
			this.dones.call(lease);
		}
		finally {
			doneSent(lease);
		}
	}

	/**
	 * Ends leases {@link #finishForNextTake} returned in one store call, at once: the
	 * {@link ItemTaker}'s grouped asks, which group them already, when none of them wants
	 * a claim. The caller ends each hold ({@link #doneSent}) once this returned or
	 * failed.
	 * @param leases the leases, at least one
	 * @throws RuntimeException the store's failure
	 */
	void doneTogether(List<L> leases) {
		this.driver.done(leases);
	}

	/**
	 * Ends the hold and the call that a lease {@link #finishForNextTake} returned kept
	 * under way, once its done has returned or failed.
	 * @param lease the lease
	 */
	public void doneSent(L lease) {
		this.book.ended(lease);
		afterRelease();
	}

	/**
	 * Hands every lease back, unprocessed, ready at once; those whose done is under way
	 * end with it.
	 * @return how many items were held
	 */
	public int handBackAll() {
		this.lifecycle.enterAlways();
		try {
			List<Holding<L>> all = this.book.finishAll();
			List<L> back = new ArrayList<>(all.size());
			RuntimeException forgetFailure = null;
			for (Holding<L> holding : all) {
				RuntimeException failure = ended(holding, back);
				forgetFailure = (forgetFailure != null) ? forgetFailure : failure;
			}
			handBackInPlace(back);
			throwIfFailed(forgetFailure);
			return all.size();
		}
		finally {
			afterRelease();
		}
	}

	/**
	 * Hands one held item back, ready after {@code delay} (a parked lease and the copies
	 * at once).
	 * @param item the item
	 * @param delay the delay
	 * @return whether this handle held the item
	 */
	public boolean handBack(Object item, Duration delay) {
		Objects.requireNonNull(item, "item");
		Objects.requireNonNull(delay, "delay");
		this.lifecycle.enterAlways();
		try {
			@SuppressWarnings("unchecked")
			Holding<L> holding = this.book.finish((T) item);
			if (holding == null) {
				return false;
			}
			RuntimeException forgetFailure = forgetWithoutDone(holding.lease);
			handBackCopies(holding);
			L live = holding.live();
			if (live != null) {
				handBackOrOrphan(live, (live == holding.parked) ? 0 : Math.max(0, Nanos.of(delay)));
			}
			throwIfFailed(forgetFailure);
			return true;
		}
		finally {
			afterRelease();
		}
	}

	/**
	 * Ends a hold that was never handed out (claimed ahead for a consumer that did not
	 * take it): the item goes back at once, in its place in line. Nothing, if the item is
	 * no longer held by that lease.
	 * @param item the item
	 * @param lease the lease it was claimed ahead by
	 */
	public void handBackUnused(T item, L lease) {
		this.lifecycle.enterAlways();
		try {
			Holding<L> holding = this.book.finishAhead(item, lease);
			if (holding != null) {
				List<L> back = new ArrayList<>(holding.copies.size() + 1);
				RuntimeException forgetFailure = ended(holding, back);
				handBackInPlace(back);
				throwIfFailed(forgetFailure);
			}
		}
		finally {
			afterRelease();
		}
	}

	/**
	 * Hands a lease back; if that fails, remembers it for the timed work, which hands it
	 * back later (at once: it cannot wait), so that no item stays leased to nobody while
	 * this handle lives.
	 * @param lease the lease
	 * @param delayNanos the delay, {@code 0} for at once
	 * @throws RuntimeException the store's failure, once the lease is remembered
	 */
	public void handBackOrOrphan(L lease, long delayNanos) {
		try {
			this.driver.handBack(lease, delayNanos);
		}
		catch (RuntimeException ex) {
			orphan(lease);
			throw ex;
		}
	}

	/**
	 * Remembers a lease to hand back, and wakes the timed work that does it: its release
	 * failed or left it held, or its claim never heard back, or heard back too late.
	 * @param lease the lease
	 */
	public void orphan(L lease) {
		this.book.orphan(lease);
		this.orphaned.run();
	}

	/**
	 * Hands leases back in place, ready at once: those of a hold that ended, or those a
	 * claim made that were never taken in hand (the claim was answered after shutdown);
	 * if that fails, remembers them for the timed work, and so those the store left held
	 * (their records locked by another transaction).
	 * @param leases the leases, none of them in the book
	 * @throws RuntimeException the store's failure, once the leases are remembered
	 */
	public void handBackInPlace(List<L> leases) {
		if (leases.isEmpty()) {
			return;
		}
		List<L> left;
		try {
			left = this.driver.handBackInPlace(leases);
		}
		catch (RuntimeException ex) {
			orphanAll(leases);
			throw ex;
		}
		orphanAll(left);
	}

	/** Remembers leases to hand back, and wakes the timed work once for them all. */
	private void orphanAll(List<L> leases) {
		if (!leases.isEmpty()) {
			leases.forEach(this.book::orphan);
			this.orphaned.run();
		}
	}

	/**
	 * Forgets what a hold that ended without a done deferred, and adds its leases (the
	 * copies, then the live one) to {@code back}, to hand back in place.
	 * @return the forget's failure, {@code null} if none
	 */
	private RuntimeException ended(Holding<L> holding, List<L> back) {
		RuntimeException forgetFailure = forgetWithoutDone(holding.lease);
		back.addAll(holding.copies);
		L live = holding.live();
		if (live != null) {
			back.add(live);
		}
		return forgetFailure;
	}

	/** Hands back, at once, the copies of a holding's item under other encodings. */
	private void handBackCopies(Holding<L> holding) {
		for (L copy : holding.copies) {
			try {
				handBackOrOrphan(copy, 0);
			}
			catch (RuntimeException ex) {
				// Remembered: the timed work hands it back, and reports the failure.
			}
		}
	}

	/**
	 * Forgets, on its own, the history deferred to a hold that ends without a done:
	 * before the item goes back, so that a failure counted once it is back is not
	 * forgotten. A failure of the store is returned, to be thrown once the hold's leases
	 * are handed back (or remembered): out of the book already, they would otherwise stay
	 * leased to nobody until they run out.
	 * @return the store's failure, {@code null} if none
	 */
	private RuntimeException forgetWithoutDone(L lease) {
		if (lease.forgets().length > 0) {
			try {
				this.driver.forget(lease);
			}
			catch (RuntimeException ex) {
				return ex;
			}
		}
		return null;
	}

	private static void throwIfFailed(RuntimeException failure) {
		if (failure != null) {
			throw failure;
		}
	}

	/** A drain or the timed work may be waiting for the last hold to end. */
	private void afterRelease() {
		if (this.book.isEmpty()) {
			this.lifecycle.changed();
		}
		this.lifecycle.exit();
	}

	/**
	 * Writes a group of dones in one {@link ReleaseDriver#done} call. A failure fails
	 * each done of the group with the store's exception itself (the same one for each
	 * caller: the engine cannot make the store's type anew).
	 */
	private record DoneWriter<L extends Lease>(ReleaseDriver<L> driver) implements BatchWriter<L, Boolean> {

		@Override
		public void write(Batch<L, Boolean> batch) {
			List<L> leases = new ArrayList<>(batch.size());
			for (int n = 0; n < batch.size(); n++) {
				leases.add(batch.argument(n));
			}
			this.driver.done(leases);
			for (int n = 0; n < batch.size(); n++) {
				batch.written(n, Boolean.TRUE);
			}
		}

		@Override
		public RuntimeException failure(Throwable cause) {
			return (cause instanceof RuntimeException ex) ? ex
					: new IllegalStateException("A grouped done failed: " + cause, cause);
		}

	}

}
