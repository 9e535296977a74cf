package dev.workqueue.store;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

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
 * <b>Claiming ahead.</b> A claim leases an item for each consumer that asks for one and
 * one for each consumer of the handle waiting for a notice that no item already ahead, or
 * promised by a claim still being taken in hand, is for (at most
 * {@link ClaimDriver#claimLimit()} in all), in one store call: never more ahead than
 * consumers waiting. The extra ones wait here, leased and renewed with the rest in the
 * {@link LeaseBook}, until those consumers take them, and only while their lease holds a
 * tenth of its length longer (else they are handed back). They are handed back when the
 * last consumer leaves without them, and at shutdown. A worker's {@code done} rides with
 * its next claim ({@link SharedPoller#doneAndPoll}).
 * <p>
 * <b>One look at a time.</b> The consumers' looks go through a {@link CallGroup}: while
 * one claim is in flight, the consumers that want to look queue their asks (with the
 * dones they owe) instead of sending claims of their own, and the next claim is made for
 * all of them at once, by whichever of them leads the group (after lingering, briefly and
 * boundedly, for the consumers the previous claim handed an item: {@code Returns}): it
 * ends the owed dones first (at most {@link LeaseReleases#MAX_DONES} with the claim, the
 * rest in done calls of their own before it). A consumer that owes a done but needs no
 * claim (items wait ahead, or the store is known empty) asks for no item: its done rides
 * with the claim of the others, or, when none wants an item, the batch's dones go without
 * a claim. The leader takes the answer in hand on its own thread (a driver may tie the
 * answer to the thread that claimed: decoding, confirming and booking stay there) and
 * hands each ask that wants an item its item, in order, directly; only the surplus goes
 * ahead, each with a notice. An asker that wanted an item waits for the leader's answer
 * whatever its deadline (the claim was sent for it), never for a notice; one handed none
 * looks again, or, when the store had no more, waits as after an empty look. An empty
 * answer marks empty the earliest epoch the wanting asks read before they looked ahead,
 * so that a notice of an item put ahead since keeps its permit. A claim that fails fails
 * every ask of it: each asker throws the store's failure, its done handled as a failed
 * done's; but when the leader was interrupted, every asker, the leader too, sends its
 * done again on its own (fenced by its token, a done that ended already changes nothing),
 * then the leader throws and the others look again.
 * <p>
 * <b>Looks.</b> A waiting consumer does not look when another found nothing and no notice
 * came since; a look the signal granted is always made (or a consumer beside it would
 * sleep while items are ready), and a poll without a wait always looks. A done owed by a
 * consumer that does not look costs no look at the store (see above).
 * <p>
 * <b>Decoding takes lease time.</b> An item taken in hand a third of the lease or more
 * after its claim was sent (a late answer, or slow decodes) has its lease confirmed by
 * the driver first ({@link Claim#confirm}), and is not handed out if it was lost, so that
 * no item goes to a worker while another handle holds it. An item the codec cannot decode
 * goes to the dead letters, and so does one whose {@code hashCode} or {@code equals}
 * throws (the handle cannot hold it); an item one of the handle's workers still holds is
 * parked; two encodings that decode to equal items (a codec that breaks its contract) are
 * said once per handle; in each case the consumer looks again. A claim answered after
 * shutdown hands its items back in place, undecoded.
 * <p>
 * Thread-safe: any number of consumers take at once; the items claimed ahead are a
 * lock-free queue, and each claim's answer is its leader's alone, which hands the items
 * out. A take blocks while it waits for a notice, for the group's store calls, and for
 * the leader that takes its item in hand.
 *
 * @param <T> the item type
 * @param <L> the store's lease type
 */
public final class ItemTaker<T, L extends Lease> {

	private static final System.Logger logger = System.getLogger(ItemTaker.class.getName());

	/** The claim linger's clock: a real-time device, whatever the handle's clock. */
	private static final Clock REAL_TIME = Clock.system();

	/** What {@link #ask} returns when nothing was leased for its consumer. */
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

	/**
	 * The items claims and adds in hand will put ahead, for the consumers they reserved
	 * before they were sent ({@link #reserve}): a claim or add does not lease for those
	 * consumers again.
	 */
	private final AtomicInteger promised = new AtomicInteger();

	private final AtomicBoolean inconsistencyLogged = new AtomicBoolean();

	/**
	 * The consumers' looks, one claim at a time. Unbounded: a leader's own ask is always
	 * in the batch it writes, so that each claim is taken in hand on the thread that sent
	 * it; the asks are at most the handle's consumers.
	 */
	private final CallGroup<Ask<L>, Looked<L>> looks = new CallGroup<>(Integer.MAX_VALUE, new LookWriter(),
			new Returns());

	/**
	 * When the leader of a claim lingers for the consumers the previous one handed an
	 * item.
	 */
	private final ClaimLinger linger = new ClaimLinger();

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
		boolean asked = false;
		boolean interrupted = false;
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
						// It needs no claim of its own: the done rides with the claim of
						// the others, or goes without one when none wants an item.
						L done = doneFirst;
						doneFirst = null;
						asked = true;
						ask(done, false, seen, patience(bounded, deadlineNanos), traces);
					}
					// Never while a done is owed: should it fail once an item is in hand,
					// its failure would be thrown in place of the item (an item ahead
					// since the check above goes with the claim's answer, or to another).
					Prioritized<T> early = (doneFirst == null) ? takeAhead(traces) : null;
					if (early != null) {
						return early;
					}
					if (look) {
						L done = doneFirst;
						doneFirst = null;
						asked = true;
						Object claimed = ask(done, true, seen, patience(bounded, deadlineNanos), traces);
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
		catch (InterruptedException ex) {
			interrupted = true;
			throw ex;
		}
		finally {
			if (!asked) {
				// Back, and leaving without an ask (an item ahead, a timeout, a wake-up,
				// shutdown, an interrupt): a lingering leader waits for it no more.
				this.linger.back();
			}
			if (this.consumers.decrementAndGet() == 0 && !this.ahead.isEmpty()) {
				// The last consumer out: no one is left to take them.
				handBackAhead();
			}
			if (doneFirst != null) {
				// Left before it could look (shut down, woken, interrupted).
				sendOwedDone(doneFirst, interrupted);
			}
		}
	}

	/**
	 * Sends the done a take owed as it leaves without a look. Its failure is thrown in
	 * place of an interrupt being thrown, so the interrupt status is set again.
	 */
	private void sendOwedDone(L done, boolean interrupted) {
		try {
			this.releases.sendDone(done);
		}
		catch (RuntimeException ex) {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			throw ex;
		}
	}

	/**
	 * Until when, in real time, a take that leads a claim may linger before it: its
	 * remaining timeout from now ({@code Long.MAX_VALUE} for none).
	 */
	private long patience(boolean bounded, long deadlineNanos) {
		if (!bounded) {
			return Long.MAX_VALUE;
		}
		return Nanos.add(REAL_TIME.nanoTime(), Math.max(0, deadlineNanos - this.clock.nanoTime()));
	}

	/**
	 * One ask of the group, ending {@code done} first if given, and wanting an item or
	 * not, lingering at most until {@code patience} if it leads: the item to hand out,
	 * {@code null} to look again (the items were parked, dead-lettered or lost, or the
	 * claim was interrupted), or {@link #NONE} when none was leased for this consumer
	 * (the store had no more, or it wanted none). An ask that wants an item and did not
	 * lead gets its item from the leader ({@link Ask#handed}).
	 */
	private Object ask(L done, boolean wantsItem, long seen, long patience, TraceSlot traces)
			throws InterruptedException {
		Ask<L> ask = new Ask<>(done, wantsItem, seen, patience, Thread.currentThread());
		Looked<L> looked;
		L owed = done;
		try {
			this.linger.back();
			looked = this.looks.call(ask);
		}
		catch (ClaimInterrupted ex) {
			// The claim may not have been sent: this done may not have ended. It is sent
			// again alone (fenced by its token, a done that ended changes nothing); the
			// leader's too, with its interrupt (kept by the group for it) cleared
			// meanwhile.
			boolean mine = ex.asker == Thread.currentThread();
			if (mine) {
				Thread.interrupted();
			}
			try {
				if (owed != null) {
					L again = owed;
					owed = null;
					this.releases.sendDone(again);
				}
			}
			finally {
				if (mine) {
					Thread.currentThread().interrupt();
				}
			}
			if (!mine) {
				return null;
			}
			Thread.interrupted();
			throw new InterruptedException();
		}
		finally {
			if (owed != null) {
				this.releases.doneSent(owed);
			}
		}
		if (looked.claim() != null) {
			lead(looked);
		}
		return wantsItem ? handedOut(ask.handed(), traces) : NONE;
	}

	/**
	 * Reserves, for items to put ahead, the handle's waiting consumers that no item
	 * ahead, and none a claim or add in hand will put ahead, is for yet: never more ahead
	 * than consumers waiting. Claims and adds reserve one after the other on
	 * {@code promised}, so two never count the same consumer.
	 * @param most the most to reserve
	 * @param waiting how many consumers wait
	 * @return how many were reserved, each to end by taking {@code promised} back down
	 */
	private int reserve(int most, IntSupplier waiting) {
		while (true) {
			int promised = this.promised.get();
			int unserved = waiting.getAsInt() - this.ahead.size() - promised;
			int count = Math.min(most, Math.max(0, unserved));
			if (count == 0 || this.promised.compareAndSet(promised, promised + count)) {
				return count;
			}
		}
	}

	/**
	 * Reserves the handle's consumers waiting with nothing ahead for them and no notice
	 * granted to them, for the items an add of this handle may lease to it directly in
	 * its own store call (at most {@link ClaimDriver#claimLimit()}): no claim leases for
	 * them meanwhile. The add then calls {@link #takeAdded}, whatever happened, on the
	 * thread that made the store call.
	 * @return how many new ready items the add may lease, 0 for none
	 */
	public int reserveForAdds() {
		// Not the consumers a notice was granted to already: that notice stands for an
		// item in the store, which one of them will look for.
		return reserve(this.driver.claimLimit(), this.signal::waitingUnnoticed);
	}

	/**
	 * Takes in hand the items an add of this handle leased to it for its waiting
	 * consumers ({@link #reserveForAdds}), on the thread that made the add: each goes
	 * ahead with a notice, as a claim's surplus does, and the reservation ends. Hands
	 * them back if the handle shuts down, or if no consumer is left to take them: the add
	 * is not a consumer, so the last consumer out may have left before they went ahead.
	 * @param claim the items the add leased, or {@code null} if the add failed or leased
	 * none
	 * @param reserved what {@link #reserveForAdds} returned
	 * @param sentNanos when the add was sent, on the handle's clock: its leases run out a
	 * lease after it
	 */
	public void takeAdded(Claim<L> claim, int reserved, long sentNanos) {
		if (claim == null) {
			this.promised.addAndGet(-reserved);
			return;
		}
		try {
			if (this.lifecycle.isShuttingDown()) {
				handBackUnread(claim);
				return;
			}
			inHand(claim, sentNanos, List.of());
			if (this.consumers.get() == 0 || this.lifecycle.isShuttingDown()) {
				handBackAhead();
			}
		}
		finally {
			try {
				claim.taken();
			}
			finally {
				this.promised.addAndGet(-reserved);
			}
		}
	}

	/**
	 * Takes a group's claim in hand on the thread that sent it, its leader's: reports the
	 * look, hands an item to each ask that wants one, in order (a member waits for it,
	 * never for a notice), and puts the others ahead, with a notice each. Every ask that
	 * wants an item gets an answer, whatever happens.
	 */
	private void lead(Looked<L> looked) {
		Claim<L> claim = looked.claim();
		int leased = claim.size();
		try {
			if (leased < looked.count()) {
				// The epoch the wanting asks read before they looked ahead: a notice of
				// an item put ahead since keeps its permit.
				this.signal.lookedEmpty(looked.seen(), claim.dueInNanos());
			}
			else {
				this.signal.lookedFull(claim.dueInNanos());
			}
			if (leased == 0) {
				return;
			}
			if (this.lifecycle.isShuttingDown()) {
				// Shut down meanwhile: a shut-down handle hands out nothing more.
				handBackUnread(claim);
				return;
			}
			inHand(claim, looked.sentNanos(), looked.wanting());
			if (leased == looked.count()) {
				this.signal.moreMayBeReady();
			}
			if (this.lifecycle.isShuttingDown()) {
				// Shut down while they were put aside: whoever sees it hands them back.
				handBackAhead();
			}
		}
		finally {
			try {
				claim.taken();
			}
			finally {
				this.promised.addAndGet(-looked.surplus());
				// Those handed nothing: the store had no more, or their items were
				// parked, dead-lettered or lost (they look again).
				Object rest = (leased < looked.count()) ? NONE : null;
				for (Ask<L> ask : looked.wanting()) {
					ask.hand(rest);
				}
			}
		}
	}

	/**
	 * What a take returns for what its ask was handed: the item, with its trace contexts
	 * put in {@code traces} if given, {@code null} to look again, or {@link #NONE}.
	 */
	private Object handedOut(Object handed, TraceSlot traces) {
		if (!(handed instanceof Handout<?> handout)) {
			return handed;
		}
		if (traces != null) {
			traces.trace(handout.trace());
		}
		this.metrics.handedOut(handout.queuedNanos());
		return handout.item();
	}

	/**
	 * Takes the leases of a claim in hand: the items handed out go to the asks that want
	 * one, in order, the others wait ahead for the waiting consumers.
	 */
	private void inHand(Claim<L> claim, long sentNanos, List<Ask<L>> wanting) {
		int next = 0;
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
			boolean forAsk = next < wanting.size();
			LeaseBook.Taken taken;
			try {
				taken = forAsk ? this.book.take(item, lease) : this.book.takeAhead(item, lease);
			}
			catch (RuntimeException | LinkageError | StackOverflowError ex) {
				// The item's own hashCode or equals threw: the handle cannot hold it, so
				// it goes as an undecodable one does (escaping, it would leave the items
				// after it leased to nobody).
				claim.deadLetter(n, new IllegalStateException("the item's hashCode or equals threw: " + ex, ex));
				continue;
			}
			if (taken != LeaseBook.Taken.HELD) {
				if (taken == LeaseBook.Taken.OTHER_ENCODING) {
					inconsistentCodec(item, claim.encoded(n));
				}
				continue;
			}
			Prioritized<T> prioritized = new Prioritized<>(item, claim.priority(n));
			if (forAsk) {
				wanting.get(next++).hand(new Handout<>(prioritized, claim.queuedNanos(n), claim.trace(n)));
			}
			else {
				this.ahead.add(new Ahead<>(prioritized, lease, claim.queuedNanos(n), nowNanos, claim.trace(n)));
				this.signal.signal();
			}
		}
	}

	/**
	 * Decodes a claimed item: {@code null} if it went to the dead letters. An error the
	 * item's own decode throws (a stack overflow on deep nesting, a class it names
	 * missing here) fails that item only, as an exception does: escaping, it would leave
	 * the items of the claim before it held for good, and those after it leased.
	 */
	private T decoded(Claim<L> claim, int n) {
		try {
			return Objects.requireNonNull(this.codec.decode(claim.encoded(n)), "codec.decode(encoded)");
		}
		catch (RuntimeException | LinkageError | StackOverflowError ex) {
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
			if (this.book.handOut(next.item().item(), next.lease(), nowNanos, this.aheadMarginNanos)) {
				if (this.metrics.recordsDurations()) {
					this.metrics.handedOut(next.queuedNanos() + (nowNanos - next.leasedNanos()));
				}
				if (traces != null) {
					traces.trace(next.trace());
				}
				return next.item();
			}
			handBackQuietly(next);
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
			handBackQuietly(next);
		}
	}

	/**
	 * Returns the encodings of the items claimed ahead and not handed to a consumer yet,
	 * for an operator's look: a weakly consistent read, as the items may be handed out or
	 * back meanwhile.
	 * @return the encodings, a copy
	 */
	public Set<String> aheadEncodings() {
		Set<String> encodings = new HashSet<>();
		for (Ahead<T, L> next : this.ahead) {
			encodings.add(next.lease().encoded());
		}
		return encodings;
	}

	private void handBackQuietly(Ahead<T, L> unused) {
		try {
			this.releases.handBackUnused(unused.item().item(), unused.lease());
		}
		catch (RuntimeException ex) {
			// Remembered: the timed work hands it back.
		}
	}

	/**
	 * How many items this handle moved to the dead letters: undecodable, or their
	 * {@code hashCode} or {@code equals} threw.
	 * @return the count
	 */
	public long deadLettered() {
		return this.driver.deadLettered();
	}

	/**
	 * Makes one claim for a batch of asks, on the leader's thread: ends every owed done
	 * first (at most {@link LeaseReleases#MAX_DONES} with the claim, the rest in calls of
	 * their own before it), leases one item for each ask that wants one and each consumer
	 * waiting for a notice that no item ahead or promised is for (at most the limit), and
	 * gives the answer to the leader's own ask; each other ask gets {@link #MEMBER}. A
	 * batch of dones only ends them without a claim. Calls no user code: the leader takes
	 * the answer in hand after the group.
	 */
	private final class LookWriter implements BatchWriter<Ask<L>, Looked<L>> {

		@Override
		public void write(Batch<Ask<L>, Looked<L>> batch) {
			ItemTaker.this.linger.judge();
			List<L> dones = new ArrayList<>(batch.size());
			List<Ask<L>> wanting = new ArrayList<>(batch.size());
			long seen = Long.MAX_VALUE;
			int leader = -1;
			for (int n = 0; n < batch.size(); n++) {
				Ask<L> ask = batch.argument(n);
				if (ask.owedDone != null) {
					dones.add(ask.owedDone);
				}
				if (ask.wantsItem) {
					wanting.add(ask);
					seen = Math.min(seen, ask.seen);
				}
				if (ask.asker == Thread.currentThread()) {
					leader = n;
				}
			}
			if (leader < 0) {
				throw new IllegalStateException("The leader of a claim has no ask in it: no one would take it");
			}
			int carried = wanting.isEmpty() ? 0 : Math.min(dones.size(), LeaseReleases.MAX_DONES);
			for (int from = carried; from < dones.size(); from += LeaseReleases.MAX_DONES) {
				// Dones only (each ask without a want has one), or more than a claim
				// carries: no look at the store for them.
				ItemTaker.this.releases
					.doneTogether(dones.subList(from, Math.min(dones.size(), from + LeaseReleases.MAX_DONES)));
			}
			if (wanting.isEmpty()) {
				for (int n = 0; n < batch.size(); n++) {
					batch.written(n, member());
				}
				return;
			}
			int limit = ItemTaker.this.driver.claimLimit();
			int surplus = reserve(Math.max(0, limit - wanting.size()), ItemTaker.this.signal::waiting);
			int count = Math.min(limit, wanting.size()) + surplus;
			// Before the claim is sent: the leases it makes run out after this plus a
			// lease.
			long sentNanos = ItemTaker.this.clock.nanoTime();
			// The linger is a real-time device: its round trip is timed in real time.
			long sentRealNanos = REAL_TIME.nanoTime();
			Claim<L> claim = null;
			try {
				claim = ItemTaker.this.driver.claim(count, dones.subList(0, carried), sentNanos);
			}
			catch (InterruptedException ex) {
				// The group keeps the interrupt for its caller, the leader.
				Thread.currentThread().interrupt();
				throw new ClaimInterrupted(Thread.currentThread());
			}
			finally {
				if (claim == null) {
					// No answer to take in hand: the reservation ends here.
					ItemTaker.this.promised.addAndGet(-surplus);
				}
			}
			// Before the group lets the next leader in, who lingers for the consumers
			// this claim hands an item.
			ItemTaker.this.linger.answered(sentRealNanos, REAL_TIME.nanoTime(), count, claim.size(), wanting.size());
			Looked<L> looked = new Looked<>(claim, count, sentNanos, seen, surplus, wanting);
			for (int n = 0; n < batch.size(); n++) {
				batch.written(n, (n == leader) ? looked : member());
			}
		}

		@Override
		public RuntimeException failure(Throwable cause) {
			// The store's exception itself, the same for each asker: the engine cannot
			// make the store's type anew.
			return (cause instanceof RuntimeException ex) ? ex
					: new IllegalStateException("A grouped claim failed: " + cause, cause);
		}

	}

	/**
	 * The group's linger ({@link ClaimLinger}), read off the queued asks: whether one
	 * wants an item, and the leader's remaining timeout.
	 */
	private final class Returns implements CallGroup.Linger<Ask<L>> {

		@Override
		public long boundNanos(List<? extends Ask<L>> queued) {
			if (!ItemTaker.this.linger.expectsMore()) {
				return 0;
			}
			long nowNanos = REAL_TIME.nanoTime();
			long patienceNanos = 0;
			boolean wanted = false;
			for (Ask<L> ask : queued) {
				wanted |= ask.wantsItem;
				if (ask.asker == Thread.currentThread()) {
					// No subtraction from "no deadline": a real-time reading may be
					// negative.
					patienceNanos = (ask.patience == Long.MAX_VALUE) ? Long.MAX_VALUE : ask.patience - nowNanos;
				}
			}
			return ItemTaker.this.linger.boundNanos(wanted, patienceNanos, ItemTaker.this.lifecycle.isShuttingDown(),
					nowNanos);
		}

		@Override
		public boolean expectsMore(List<? extends Ask<L>> queued) {
			return ItemTaker.this.linger.expectsMore() && !ItemTaker.this.lifecycle.isShuttingDown();
		}

	}

	@SuppressWarnings("unchecked")
	private static <L extends Lease> Looked<L> member() {
		return (Looked<L>) MEMBER;
	}

	/** What an ask got when another asker's claim was its look, or none was made. */
	private static final Looked<?> MEMBER = new Looked<>(null, 0, 0, 0, 0, List.of());

	/**
	 * A consumer's ask: a look, or only a done to end; and, when it wants an item, what
	 * the leader of its claim handed it.
	 *
	 * @param <L> the store's lease type
	 */
	private static final class Ask<L> {

		/** The lease whose done rides with the claim, or {@code null}. */
		final L owedDone;

		/**
		 * Whether it wants an item (else it has a done, and the claim leases none for
		 * it).
		 */
		final boolean wantsItem;

		/** The epoch it read before it looked ahead. */
		final long seen;

		/**
		 * Until when, in real time, it may wait for a linger when it leads the claim.
		 */
		final long patience;

		/** The consumer's thread. */
		final Thread asker;

		/**
		 * A {@link Handout}, {@code null} to look again, or {@link #NONE}; guarded by
		 * this.
		 */
		private Object handed;

		private boolean answered;

		Ask(L owedDone, boolean wantsItem, long seen, long patience, Thread asker) {
			this.owedDone = owedDone;
			this.wantsItem = wantsItem;
			this.seen = seen;
			this.patience = patience;
			this.asker = asker;
		}

		/** The leader's answer, unless it gave one already. */
		synchronized void hand(Object answer) {
			if (!this.answered) {
				this.answered = true;
				this.handed = answer;
				notifyAll();
			}
		}

		/**
		 * Waits for the leader's answer: the claim for this ask was made, and the leader
		 * is taking it in hand, so the wait is short and never for a notice, whatever the
		 * take's deadline. Not interruptible (an interrupt is kept): an item may be
		 * leased for it.
		 */
		synchronized Object handed() {
			boolean interrupted = false;
			while (!this.answered) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
			return this.handed;
		}

	}

	/**
	 * The claim made for a leader's ask, or {@link #MEMBER}'s {@code null}s.
	 *
	 * @param claim the answer, the leader's to take in hand
	 * @param count how many items it asked for
	 * @param sentNanos when it was sent, on the clock
	 * @param seen the earliest epoch the asks that want an item read
	 * @param surplus how many of the items asked for are for consumers waiting for a
	 * notice
	 * @param wanting the asks that want an item, in order
	 */
	private record Looked<L extends Lease>(Claim<L> claim, int count, long sentNanos, long seen, int surplus,
			List<Ask<L>> wanting) {

	}

	/**
	 * An item a leader handed to an ask.
	 *
	 * @param item the item and its priority
	 * @param queuedNanos how long it had been ready when claimed
	 * @param trace its trace contexts, or {@code null}
	 */
	private record Handout<T>(Prioritized<T> item, long queuedNanos, ItemTrace trace) {

	}

	/** The claim of a group was interrupted: its leader's thread. */
	private static final class ClaimInterrupted extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient Thread asker;

		ClaimInterrupted(Thread asker) {
			super("The claim of a group was interrupted", null, false, false);
			this.asker = asker;
		}

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
