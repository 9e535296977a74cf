package dev.workqueue.store;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workqueue.ItemCodec;
import dev.workqueue.PriorityQueue.Prioritized;
import dev.workqueue.WorkQueueMetrics;
import dev.workqueue.spi.HandleLifecycle;
import dev.workqueue.spi.ItemTrace;
import dev.workqueue.store.ClaimDriver.Claim;
import dev.workqueue.store.ReadySignal.Wakeup;
import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a shared queue handle's {@code get} and {@code poll} take an item: claim the next
 * ready one under a new lease through the store's {@link ClaimDriver}, or wait on the
 * {@link ReadySignal} for a notice. Part of the shared-store engine, used by store
 * modules; may change before 1.0.
 * <p>
 * <b>Claiming ahead.</b> A claim leases an item for its consumer and one for each
 * consumer of the handle waiting for a notice (at most {@link ClaimDriver#claimLimit()}
 * in all), in one store call; the extra ones wait here, leased and renewed with the rest
 * in the {@link LeaseBook}, until those consumers take them, and only while their lease
 * holds a tenth of its length longer (else they are handed back). They are handed back
 * when the last consumer leaves without them, and at shutdown. A worker's {@code done}
 * rides with its next claim ({@link SharedPoller#doneAndPoll}).
 * <p>
 * <b>Looks.</b> A waiting consumer does not look when another found nothing and no notice
 * came since; a look the signal granted is always made (or a consumer beside it would
 * sleep while items are ready), and a poll without a wait always looks. A done owed by a
 * consumer that does not look goes alone, so that it costs no look at the store.
 * <p>
 * <b>Decoding takes lease time.</b> An item taken in hand a third of the lease or more
 * after its claim was sent (a late answer, or slow decodes) has its lease confirmed by
 * the driver first ({@link Claim#confirm}), and is not handed out if it was lost, so that
 * no item goes to a worker while another handle holds it. An item the codec cannot decode
 * goes to the dead letters; an item one of the handle's workers still holds is parked;
 * two encodings that decode to equal items (a codec that breaks its contract) are said
 * once per handle; in each case the consumer looks again. A claim answered after shutdown
 * hands its items back in place, undecoded.
 * <p>
 * Thread-safe: any number of consumers take at once; the items claimed ahead are a
 * lock-free queue, and each claim's answer is its consumer's alone. A take blocks while
 * it waits for a notice and for one store call at a time.
 *
 * @param <T> the item type
 * @param <L> the store's lease type
 */
public final class ItemTaker<T, L extends Lease> {

	private static final System.Logger logger = System.getLogger(ItemTaker.class.getName());

	/** What {@link #claim} returns when nothing was leased. */
	private static final Object NONE = new Object();

	private final ItemCodec<T> codec;

	private final ClaimDriver<L> driver;

	private final LeaseBook<T, L> book;

	private final LeaseReleases<T, L> releases;

	private final ReadySignal signal;

	private final HandleLifecycle lifecycle;

	/** The queue's hook, guarded; it takes durations only if it records them. */
	private final WorkQueueMetrics metrics;

	private final Clock clock;

	/**
	 * How long after its claim a lease is sure to be renewed in time once in the book:
	 * the timed work renews every third of the lease.
	 */
	private final long confirmAfterNanos;

	/** How much longer than now a lease claimed ahead must hold to be handed out. */
	private final long aheadMarginNanos;

	/**
	 * Items claimed for consumers that were waiting, not handed out yet; each is in the
	 * book, so renewed with the rest.
	 */
	private final ConcurrentLinkedQueue<Ahead<T, L>> ahead = new ConcurrentLinkedQueue<>();

	/** The consumers inside {@link #take}. */
	private final AtomicInteger consumers = new AtomicInteger();

	private final AtomicBoolean inconsistencyLogged = new AtomicBoolean();

	/**
	 * Creates a taker.
	 * @param codec the codec of the queue's items
	 * @param driver the store's claims
	 * @param book the handle's leases
	 * @param releases the handle's releases
	 * @param signal the handle's ready signal
	 * @param lifecycle the handle's lifecycle
	 * @param metrics the queue's hook, guarded
	 * @param clock the handle's clock
	 * @param leaseNanos the lease
	 */
	public ItemTaker(ItemCodec<T> codec, ClaimDriver<L> driver, LeaseBook<T, L> book, LeaseReleases<T, L> releases,
			ReadySignal signal, HandleLifecycle lifecycle, WorkQueueMetrics metrics, Clock clock, long leaseNanos) {
		this.codec = codec;
		this.driver = driver;
		this.book = book;
		this.releases = releases;
		this.signal = signal;
		this.lifecycle = lifecycle;
		this.metrics = metrics;
		this.clock = clock;
		this.confirmAfterNanos = leaseNanos / 3;
		this.aheadMarginNanos = leaseNanos / 10;
	}

	/**
	 * Takes the next item, waiting for one at most {@code timeoutNanos} when
	 * {@code bounded}, and only until {@code wakeup} comes when given; first ends
	 * {@code owedDone}, if given, in the same call as the claim when it can.
	 * @param bounded whether the wait is bounded
	 * @param timeoutNanos the bound, not negative
	 * @param wakeup the wake-up of the poller that takes, or {@code null} for a plain get
	 * or poll
	 * @param owedDone a lease whose done rides with this take, or {@code null}
	 * @param traces where the trace contexts of the item taken go (set to {@code null}
	 * first), or {@code null} to drop them (a plain get)
	 * @return the item with the priority it is handed out with (0 on a plain queue), or
	 * {@code null} on timeout, wake-up, or once shut down
	 * @throws InterruptedException if interrupted while it waits
	 */
	public Prioritized<T> take(boolean bounded, long timeoutNanos, Wakeup wakeup, L owedDone, TraceSlot traces)
			throws InterruptedException {
		if (traces != null) {
			traces.trace(null);
		}
		long deadlineNanos = bounded ? Nanos.add(this.clock.nanoTime(), timeoutNanos) : 0;
		boolean waited = false;
		// Whether the signal granted this consumer a look it has not made yet: it makes
		// it, or a consumer beside it would sleep while items are ready (ReadySignal).
		boolean granted = false;
		L doneFirst = owedDone;
		this.consumers.incrementAndGet();
		try {
			if (Thread.interrupted()) {
				// As a blocking call does: nothing is sent.
				throw new InterruptedException();
			}
			while (true) {
				long seen = this.signal.epoch();
				if (!this.lifecycle.enter()) {
					return null;
				}
				try {
					// No claim is sent after a wait that reached the deadline.
					if (!granted && ((waited && bounded && this.clock.nanoTime() >= deadlineNanos)
							|| (wakeup != null && wakeup.take()))) {
						return null;
					}
					// A look the signal granted is always made; a poll without a wait
					// always looks; a waiting consumer does not when another found
					// nothing and no notice came since.
					boolean look = granted || !this.signal.knownEmpty(seen) || (bounded && timeoutNanos == 0);
					granted = false;
					if (doneFirst != null && (!look || !this.ahead.isEmpty())) {
						L done = doneFirst;
						doneFirst = null;
						this.releases.sendDone(done);
					}
					Prioritized<T> early = takeAhead(traces);
					if (early != null) {
						return early;
					}
					if (look) {
						L done = doneFirst;
						doneFirst = null;
						Object claimed = claim(done, seen, traces);
						if (claimed != NONE) {
							@SuppressWarnings("unchecked")
							Prioritized<T> item = (Prioritized<T>) claimed;
							if (item != null) {
								return item;
							}
							// Parked, dead-lettered or lost: look again at once.
							continue;
						}
					}
				}
				finally {
					this.lifecycle.exit();
				}
				if (!this.signal.awaitNotice(bounded, deadlineNanos, wakeup) || this.lifecycle.isShuttingDown()) {
					// Timed out with no notice taken, or shut down (every consumer is
					// woken).
					return null;
				}
				waited = true;
				granted = true;
			}
		}
		finally {
			if (this.consumers.decrementAndGet() == 0 && !this.ahead.isEmpty()) {
				// The last consumer out: no one is left to take them.
				handBackAhead();
			}
			if (doneFirst != null) {
				// Left before it could look (shut down, woken, interrupted).
				this.releases.sendDone(doneFirst);
			}
		}
	}

	/**
	 * One claim, ending {@code done} first if given: the item to hand out, {@code null}
	 * to look again (the items were parked, dead-lettered or lost), or {@link #NONE} when
	 * none was leased. An answer with fewer items than asked for means none is left:
	 * empty at epoch {@code seen}.
	 */
	private Object claim(L done, long seen, TraceSlot traces) throws InterruptedException {
		int count = Math.min(this.driver.claimLimit(), 1 + this.signal.waiting());
		// Before the claim is sent: the leases it makes run out after this plus a lease.
		long sentNanos = this.clock.nanoTime();
		Claim<L> claim;
		try {
			claim = this.driver.claim(count, (done != null) ? List.of(done) : List.of(), sentNanos);
		}
		finally {
			if (done != null) {
				this.releases.doneSent(done);
			}
		}
		try {
			int leased = claim.size();
			if (leased < count) {
				this.signal.lookedEmpty(seen, claim.dueInNanos());
			}
			else {
				this.signal.lookedFull(claim.dueInNanos());
			}
			if (leased == 0) {
				return NONE;
			}
			if (this.lifecycle.isShuttingDown()) {
				// Shut down meanwhile: a shut-down handle hands out nothing more.
				handBackUnread(claim);
				return null;
			}
			Prioritized<T> mine = inHand(claim, sentNanos, traces);
			if (leased == count) {
				this.signal.moreMayBeReady();
			}
			if (this.lifecycle.isShuttingDown()) {
				// Shut down while they were put aside: whoever sees it hands them back.
				handBackAhead();
			}
			return mine;
		}
		finally {
			claim.taken();
		}
	}

	/**
	 * Takes the leases of a claim in hand: the first item handed out is this consumer's,
	 * the others wait ahead for the waiting ones.
	 */
	private Prioritized<T> inHand(Claim<L> claim, long sentNanos, TraceSlot traces) {
		Prioritized<T> mine = null;
		// Read with or without durations: the leases' start times give stats() the
		// unfinished work and longest running processor.
		long nowNanos = this.clock.nanoTime();
		for (int n = 0, leased = claim.size(); n < leased; n++) {
			T item = decoded(claim, n);
			if (item == null) {
				continue;
			}
			long elapsedNanos = this.clock.nanoTime() - sentNanos;
			if (elapsedNanos >= this.confirmAfterNanos && !claim.confirm(n, elapsedNanos)) {
				continue;
			}
			L lease = claim.lease(n, nowNanos);
			LeaseBook.Taken taken = this.book.take(item, lease);
			if (taken != LeaseBook.Taken.HELD) {
				if (taken == LeaseBook.Taken.OTHER_ENCODING) {
					inconsistentCodec(item, claim.encoded(n));
				}
				continue;
			}
			Prioritized<T> prioritized = new Prioritized<>(item, claim.priority(n));
			if (mine == null) {
				mine = prioritized;
				if (traces != null) {
					traces.trace(claim.trace(n));
				}
				this.metrics.handedOut(claim.queuedNanos(n));
			}
			else {
				this.ahead.add(new Ahead<>(prioritized, lease, claim.queuedNanos(n), nowNanos, claim.trace(n)));
				this.signal.signal();
			}
		}
		return mine;
	}

	/** Decodes a claimed item: {@code null} if it went to the dead letters. */
	private T decoded(Claim<L> claim, int n) {
		try {
			return Objects.requireNonNull(this.codec.decode(claim.encoded(n)), "codec.decode(encoded)");
		}
		catch (RuntimeException ex) {
			claim.deadLetter(n, ex);
			return null;
		}
	}

	/** Hands every item of a claim back in place, not taken in hand (shutdown). */
	private void handBackUnread(Claim<L> claim) {
		long nowNanos = this.clock.nanoTime();
		List<L> leases = new ArrayList<>(claim.size());
		for (int n = 0; n < claim.size(); n++) {
			leases.add(claim.lease(n, nowNanos));
		}
		try {
			this.releases.handBackInPlace(leases);
		}
		catch (RuntimeException ex) {
			// Remembered: the timed work hands them back.
		}
	}

	/**
	 * The codec decoded two encodings to equal items, against its contract (equal items,
	 * equal encodings; the encoding is the item's identity in the store): said once per
	 * handle.
	 */
	private void inconsistentCodec(T item, String encoded) {
		if (this.inconsistencyLogged.compareAndSet(false, true)) {
			logger.log(Level.ERROR, this.driver.who() + ": its codec " + this.codec
					+ " encodes equal items differently: '" + encoded + "' decodes to an item equal to one a worker"
					+ " holds as '" + this.book.heldEncoding(item) + "'; an item's encoding is its identity in the"
					+ " store, so equal items must encode to the same string (the copy is held until the worker is"
					+ " done with the item, then goes back to the queue: each copy runs, one after the other)");
		}
	}

	/**
	 * Hands out an item claimed ahead, if one is left whose lease still holds long
	 * enough, putting its trace contexts in {@code traces} if given; hands back those
	 * whose lease does not (their contexts are dropped, as a hand-back after a hand-out
	 * drops them).
	 */
	private Prioritized<T> takeAhead(TraceSlot traces) {
		for (Ahead<T, L> next = this.ahead.poll(); next != null; next = this.ahead.poll()) {
			long nowNanos = this.clock.nanoTime();
			if (this.book.handsOut(next.item().item(), next.lease(), nowNanos, this.aheadMarginNanos)) {
				if (this.metrics.recordsDurations()) {
					this.metrics.handedOut(next.queuedNanos() + (nowNanos - next.leasedNanos()));
				}
				if (traces != null) {
					traces.trace(next.trace());
				}
				return next.item();
			}
			handBackQuietly(next.item().item());
		}
		return null;
	}

	/**
	 * Hands every item claimed ahead back: no consumer is left to take them, or shutdown.
	 * Each consumer leaving {@link #take} counts itself out before it looks at them, and
	 * one that puts them aside does so before it counts itself out, so the last one out
	 * sees every item left.
	 */
	public void handBackAhead() {
		for (Ahead<T, L> next = this.ahead.poll(); next != null; next = this.ahead.poll()) {
			handBackQuietly(next.item().item());
		}
	}

	private void handBackQuietly(T item) {
		try {
			this.releases.handBackUnused(item);
		}
		catch (RuntimeException ex) {
			// Remembered: the timed work hands it back.
		}
	}

	/**
	 * How many undecodable items this handle moved to the dead letters.
	 * @return the count
	 */
	public long deadLettered() {
		return this.driver.deadLettered();
	}

	/**
	 * An item claimed ahead for a waiting consumer.
	 *
	 * @param item the item and its priority
	 * @param lease its lease
	 * @param queuedNanos how long it had been ready when claimed
	 * @param leasedNanos when it was claimed, on the clock
	 * @param trace its trace contexts, or {@code null}
	 */
	private record Ahead<T, L>(Prioritized<T> item, L lease, long queuedNanos, long leasedNanos, ItemTrace trace) {

	}

}
