package dev.workqueue.store;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workqueue.time.Clock;
import dev.workqueue.time.Nanos;

/**
 * How a handle's consumers wait for ready items without asking the store in a loop:
 * written once for every shared store, which answers the one question where they differ,
 * how its consumers hear of items made ready elsewhere ({@link StoreWakeups}).
 * <p>
 * <b>Notices.</b> Each notice (a local add, a store's notice of an item queued, a look
 * that left items for others) grants one look: a permit, which one waiting consumer takes
 * before it looks again, so that a stream of notices wakes one consumer each, never all.
 * A notice that comes while nobody waits is kept for the next consumer. Each notice also
 * bumps an epoch: a consumer whose look found nothing marks that epoch empty, and until
 * the next notice the others wait without asking, so many idle consumers cost one look,
 * not one each; the permits of the notices before that look are spent by it.
 * <p>
 * <b>A permit taken is a look made.</b> A waiting consumer whose poller's {@link Wakeup}
 * came or whose deadline passed leaves without taking a permit, so that the permit wakes
 * a consumer beside it: else that one would sleep while items are ready. A consumer
 * granted a look ({@link #awaitNotice} returned {@code true}) makes it, unless the handle
 * shuts down.
 * <p>
 * <b>Timed looks.</b> Where the store does not announce items falling due
 * ({@link StoreWakeups#lookIntervalNanos()}), one waiting consumer at a time, the leader
 * (as in the JDK's {@code DelayQueue}), also waits for the next timed look: the earliest
 * known due time of a delayed item, or a look interval after the last look found nothing,
 * whichever is first. When it leaves, the next waiter takes the lead. Due times a store's
 * notice carries on its own clock are mapped with the offset of that clock, measured at
 * each look ({@link #measured}).
 * <p>
 * Part of the shared-store engine, used by store modules; may change before 1.0.
 * Thread-safe: {@code lock} guards every field but the store clock's offset (volatile);
 * {@code waiting}, {@code epoch} and {@code emptyAtEpoch} are written under it and
 * volatile, so that a consumer reads each alone without it. Only {@link #awaitNotice}
 * blocks.
 */
public final class ReadySignal {

	/**
	 * One poller's sticky wake-up: it ends that poller's wait under way, or its next one
	 * if none is. Set before the lock is taken to signal, and read by the waiter under
	 * the lock before each wait, so the waiter sees it or is signalled after it.
	 * Thread-safe.
	 */
	public static final class Wakeup {

		private final AtomicBoolean pending = new AtomicBoolean();

		/**
		 * Uses the wake-up up, if one is pending.
		 * @return whether one was
		 */
		public boolean take() {
			return this.pending.get() && this.pending.compareAndSet(true, false);
		}

	}

	/** More permits than consumers ever wait: the rest would find nothing. */
	private static final int MAX_PERMITS = 1024;

	private final Clock clock;

	private final StoreWakeups wakeups;

	/** How long the leader waits after a look found nothing; {@code NO_TIMED_LOOKS}. */
	private final long lookIntervalNanos;

	private final boolean timedLooks;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition notice = this.lock.newCondition();

	private volatile long epoch;

	/** The epoch at which a look found nothing. */
	private volatile long emptyAtEpoch = -1;

	private int permits;

	/** Set by {@link #signalAll()}: no consumer waits any more. */
	private boolean released;

	/** The waiter that waits for the next timed look, or {@code null}. */
	private Thread leader;

	/** When the leader looks on its own: at once, until the first look reported. */
	private long nextLookNanos;

	/** The earliest due time heard of since it passed, {@code Long.MAX_VALUE} if none. */
	private long notedDueNanos = Long.MAX_VALUE;

	/** The store's clock minus this clock, in µs; {@code null} until measured. */
	private volatile Long storeOffsetMicros;

	/**
	 * Consumers that wait in {@link #awaitNotice}, not those that leave it at once;
	 * written under the lock.
	 */
	private volatile int waiting;

	/**
	 * Makes the signal of a handle.
	 * @param clock the handle's clock
	 * @param wakeups the store's answers
	 * @param storeOffsetMicros the store's clock minus this clock in µs if known (a given
	 * clock anchored in the store), else {@code null}: the first look measures it
	 */
	public ReadySignal(Clock clock, StoreWakeups wakeups, Long storeOffsetMicros) {
		this.clock = Objects.requireNonNull(clock, "clock");
		this.wakeups = Objects.requireNonNull(wakeups, "wakeups");
		this.lookIntervalNanos = wakeups.lookIntervalNanos();
		this.timedLooks = this.lookIntervalNanos != StoreWakeups.NO_TIMED_LOOKS;
		this.nextLookNanos = this.timedLooks ? 0 : Long.MAX_VALUE;
		this.storeOffsetMicros = storeOffsetMicros;
	}

	/**
	 * Returns the epoch now: a consumer reads it before it looks.
	 * @return the epoch
	 */
	public long epoch() {
		return this.epoch;
	}

	/**
	 * Whether a look found nothing at this epoch, and no notice came since.
	 * @param seen the epoch read before the look
	 * @return whether a look now would find nothing new
	 */
	public boolean knownEmpty(long seen) {
		return seen == this.emptyAtEpoch;
	}

	/**
	 * A look that began at epoch {@code seen} found fewer items than it asked for: if no
	 * notice came since, it answered every notice before it; the leader looks again at
	 * the earliest due time it reported or a look interval from now.
	 * @param seen the epoch when the look began
	 * @param dueInNanos how long until the earliest waiting item is due; negative if none
	 * or not told
	 */
	public void lookedEmpty(long seen, long dueInNanos) {
		this.lock.lock();
		try {
			if (this.epoch == seen) {
				this.emptyAtEpoch = seen;
				this.permits = 0;
			}
			if (!this.timedLooks) {
				return;
			}
			long nowNanos = this.clock.nanoTime();
			if (this.notedDueNanos <= nowNanos) {
				this.notedDueNanos = Long.MAX_VALUE;
			}
			long next = Math.min(Nanos.add(nowNanos, this.lookIntervalNanos), this.notedDueNanos);
			if (dueInNanos >= 0) {
				next = Math.min(next, Nanos.add(nowNanos, dueInNanos));
			}
			boolean sooner = next < this.nextLookNanos;
			this.nextLookNanos = next;
			if (sooner) {
				// The leader waits for the old time: it looks sooner now.
				this.notice.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A look took all it asked for: the leader need not look before the earliest due time
	 * it reported.
	 * @param dueInNanos how long until the earliest waiting item is due; negative if none
	 */
	public void lookedFull(long dueInNanos) {
		if (dueInNanos >= 0) {
			dueIn(dueInNanos);
		}
	}

	/**
	 * A look took all it asked for, and handed out what it took: more may be ready, and
	 * another consumer should look. Where the store hands the wake-ups out, the look
	 * armed the store's wake-up for the next waiting consumer of all the instances; else
	 * a local one looks: one that waits beyond the notices pending (those of the items
	 * the look put ahead wake consumers that take those items and look no further), or,
	 * with none pending, the next to wait.
	 */
	public void moreMayBeReady() {
		if (!this.wakeups.handsOutWakeups() && !signalIfWaiting()) {
			signalUnlessPending();
		}
	}

	/**
	 * A notice: one waiting consumer looks. Never blocks for long; on an event loop too.
	 */
	public void signal() {
		this.lock.lock();
		try {
			this.epoch++;
			this.permits = Math.min(MAX_PERMITS, this.permits + 1);
			this.notice.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A notice that more may be ready, unless one is pending: one consumer looking again
	 * is enough, and notices piled up while the consumers were busy would each cost a
	 * look that finds nothing.
	 */
	public void signalUnlessPending() {
		this.lock.lock();
		try {
			if (this.permits == 0) {
				this.epoch++;
				this.permits = 1;
				this.notice.signal();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A notice for a consumer waiting now, if one waits with no notice granted to it: a
	 * store's wake-up that another instance's consumer should have otherwise (a permit
	 * kept here for nobody would leave that one asleep while an item is ready).
	 * @return whether a waiting consumer was granted a look; {@code false} changes
	 * nothing
	 */
	public boolean signalIfWaiting() {
		this.lock.lock();
		try {
			if (this.waiting - this.permits <= 0) {
				return false;
			}
			this.epoch++;
			this.permits++;
			this.notice.signal();
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A store's notice that an item was queued: one waiting consumer looks, unless the
	 * store hands the wake-ups out itself (the notice is then not for this signal).
	 */
	public void queued() {
		if (!this.wakeups.handsOutWakeups()) {
			signal();
		}
	}

	/**
	 * A store's notice that an item was queued, ready at {@code dueEpochMillis} on the
	 * store's clock (0: now): one waiting consumer looks then.
	 * @param dueEpochMillis when it is ready, ms since the epoch on the store's clock
	 */
	public void queued(long dueEpochMillis) {
		Long offset = this.storeOffsetMicros;
		if (dueEpochMillis <= 0 || offset == null) {
			// Unknown offset: a look now learns the due time from the store's answer.
			queued();
			return;
		}
		long dueLocalMicros = dueEpochMillis * 1000 - offset;
		long nowMicros = Math.floorDiv(this.clock.nanoTime(), 1000);
		if (dueLocalMicros <= nowMicros) {
			queued();
		}
		else {
			dueIn((dueLocalMicros - nowMicros) * 1000);
		}
	}

	/**
	 * A delayed item falls due in {@code dueInNanos}: the leader looks then, at the
	 * latest. Nothing where the store announces items falling due.
	 * @param dueInNanos how long until it is due, from now on this signal's clock
	 */
	public void dueIn(long dueInNanos) {
		if (!this.timedLooks) {
			return;
		}
		this.lock.lock();
		try {
			long nowNanos = this.clock.nanoTime();
			long dueNanos = Nanos.add(nowNanos, Math.max(0, dueInNanos));
			if (this.notedDueNanos <= nowNanos || dueNanos < this.notedDueNanos) {
				this.notedDueNanos = dueNanos;
			}
			if (dueNanos < this.nextLookNanos) {
				this.nextLookNanos = dueNanos;
				this.notice.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Records the store's time at a moment of this clock, so that due times on the
	 * store's clock (notices) can be waited for here.
	 * @param storeNowMicros the store's time, µs since the epoch
	 * @param localNanos this clock's reading at about that moment (after it)
	 */
	public void measured(long storeNowMicros, long localNanos) {
		this.storeOffsetMicros = storeNowMicros - Math.floorDiv(localNanos, 1000);
	}

	/**
	 * Estimates the store's time a delay from now, for the payload of a notice sent
	 * before the store tells the exact time.
	 * @param delayMicros the delay
	 * @return ms since the epoch on the store's clock, or 0 (ready now) if the offset is
	 * not known yet
	 */
	public long storeMillis(long delayMicros) {
		Long offset = this.storeOffsetMicros;
		if (offset == null) {
			return 0;
		}
		return Math.max(1, Math.floorDiv(Math.floorDiv(this.clock.nanoTime(), 1000) + offset + delayMicros, 1000));
	}

	/** Every waiting consumer, and every one to come, stops waiting: shutdown. */
	public void signalAll() {
		this.lock.lock();
		try {
			this.epoch++;
			this.released = true;
			this.notice.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * How many consumers wait for a notice now: a look takes an item for each of them
	 * too.
	 * @return the consumers in {@link #awaitNotice}
	 */
	public int waiting() {
		return this.waiting;
	}

	/**
	 * How many consumers wait with no notice granted to them: each notice already granted
	 * stands for an item, whichever consumer takes it.
	 * @return the consumers in {@link #awaitNotice} beyond the permits, 0 if none
	 */
	public int waitingUnnoticed() {
		this.lock.lock();
		try {
			return Math.max(0, this.waiting - this.permits);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wakes a poller: its wait under way ends, or its next one. The other waiting
	 * consumers wake too, find nothing for them, and wait on: wake-ups are rare (a pause,
	 * a resize, a stop of the worker container).
	 * @param wakeup the poller's wake-up
	 */
	public void wake(Wakeup wakeup) {
		wakeup.pending.set(true);
		this.lock.lock();
		try {
			this.notice.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits for a reason to look: a notice (its permit is taken), the leader's timed
	 * look, or shutdown; at most until {@code deadlineNanos} when {@code bounded}, and
	 * only until {@code wakeup} comes when given (it is then used up). A consumer whose
	 * wake-up came or whose deadline passed leaves the permits to the others; one that
	 * returns {@code true} must look unless the handle shuts down.
	 * @param bounded whether the wait is bounded
	 * @param deadlineNanos the bound, on the clock
	 * @param wakeup the poller's wake-up, or {@code null} for a plain get or poll
	 * @return {@code true} to look (or on shutdown), {@code false} on timeout or wake-up
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitNotice(boolean bounded, long deadlineNanos, Wakeup wakeup) throws InterruptedException {
		Thread me = Thread.currentThread();
		// Counted only once it is about to wait: a claim leases an item ahead for each
		// consumer counted (waiting()), and a store that hands the wake-ups out arms one
		// for the first, so one that leaves at once (its wake-up came, its deadline
		// passed, a permit or shutdown lets it look) must never be counted, even briefly.
		boolean counted = false;
		this.lock.lock();
		try {
			while (true) {
				if (wakeup != null && wakeup.take()) {
					return false;
				}
				long nowNanos = (bounded || this.timedLooks) ? this.clock.nanoTime() : 0;
				if (bounded && nowNanos >= deadlineNanos) {
					return false;
				}
				if (this.permits > 0) {
					this.permits--;
					return true;
				}
				if (this.released) {
					return true;
				}
				if (this.timedLooks && this.leader == null) {
					this.leader = me;
				}
				if (this.leader == me && nowNanos >= this.nextLookNanos) {
					// Until this look reports, the next leader waits a look interval.
					this.nextLookNanos = Nanos.add(nowNanos, this.lookIntervalNanos);
					return true;
				}
				if (!counted) {
					counted = true;
					this.waiting++;
					if (this.waiting == 1) {
						this.wakeups.firstWaiting();
					}
				}
				if (this.leader == me) {
					this.clock.awaitUntil(this.lock, this.notice,
							bounded ? Math.min(deadlineNanos, this.nextLookNanos) : this.nextLookNanos);
				}
				else if (bounded) {
					this.clock.awaitUntil(this.lock, this.notice, deadlineNanos);
				}
				else {
					this.notice.await();
				}
			}
		}
		finally {
			if (this.leader == me) {
				this.leader = null;
			}
			if (counted) {
				this.waiting--;
			}
			// Another waiter takes the lead, whenever none leads: this one led, or a
			// leaving leader woke this one to take the lead and it leaves at once (its
			// deadline or wake-up came). Or a permit this consumer leaves wakes one
			// beside it: the notice's signal may have woken this one only.
			if (this.waiting > 0 && ((this.timedLooks && this.leader == null) || this.permits > 0)) {
				this.notice.signal();
			}
			this.lock.unlock();
		}
	}

}
